// The texts of a fleet batch landed as pull requests (`ralph submit --batch --land pr`): a worker's refusals, and
// what `ralph status`/`ralph wait` say of a task's pull request.

/** Refusal: a `--land pr` task taken by a worker started without `--allow-github`. */
export const noGitHubWorker = (workerId: string): string =>
  `ralph fleet: worker ${workerId} does not open pull requests (start it with --allow-github: it opens them with its ` +
  'own GitHub token, GITHUB_TOKEN, GH_TOKEN or gh auth token). Nothing was started';

/** Refusal: `ralph submit --batch --land pr` that knows no repository to open the pull requests on. */
export const noPullRepo = (): string =>
  'ralph submit --batch --land pr: the repository the pull requests go to is not known: give --github-repo OWNER/REPO ' +
  '(or --from-github OWNER/REPO, or a --repo URL on GitHub); nothing was submitted';

/** Refusal: a pull-request option of `ralph submit --batch` without `--land pr`. */
export const pullOptionWithoutLand = (option: string): string =>
  `ralph submit --batch: ${option} needs --land pr; nothing was submitted`;

/** Refusal: `--land` given anything but `pr` on the fleet. */
export const fleetLandNotPr = (given: string): string =>
  `ralph submit --batch --land ${JSON.stringify(given)}: a fleet batch lands as pull requests with --land pr (without --land: on the target); nothing was submitted`;

/** A task that passed but whose pull request GitHub or the push refused: it needs review, on its branch. */
export const pullNotOpened = (why: string): string =>
  `its verify passed on the target's tree, but no pull request was opened: ${why}`;

/** A task that did not pass and whose draft pull request GitHub or the push refused. */
export const draftNotOpened = (why: string): string => `no draft pull request was opened: ${why}`;

/** The push of a task's branch to GitHub refused: the branch has commits ralph did not push (a person's). */
export const pullPushRefused = (branch: string): string =>
  `git would not push ${branch}: it has commits ralph did not push there (or the remote refused)`;

/** `ralph status`/`wait`: the line of a task whose pull request is ready. */
export const readyPullLine = (taskId: string, url: string): string => `${taskId}: pull request ${url}`;

/** `ralph status`/`wait`: the line (indented under its task) of a task whose pull request is a draft (it did not pass). */
export const draftPullLine = (url: string): string =>
  `  draft pull request ${url} (labelled ralph: needs-review)`;
