import type { BatchOutput } from '../machines/batch.machine.js';
import { git } from '../workspace/git-command.js';

/**
 * The landings the merge queue started. A cancel stops the queue's landing actor, but not a `git update-ref` it has
 * already made: the target may hold a task the machine saw cancelled. Each landing is remembered with the head it
 * moves the target to, so that once the batch has settled the target itself says which of them happened.
 */
export class LandingLog {
  private readonly started = new Map<string, { head: string; done: Promise<unknown> }>();

  /** Notes that `taskId`'s landing on `head` is under way; `landing` settles when it is over, either way. */
  track(taskId: string, head: string, landing: Promise<unknown>): void {
    this.started.set(taskId, { head, done: landing.catch(() => undefined) });
  }

  /** The commit `taskId`'s landing moves (or moved) the target to; undefined when no landing of it started. */
  headOf(taskId: string): string | undefined {
    return this.started.get(taskId)?.head;
  }

  /**
   * The tasks the settled batch does not count as landed whose landing did move the target (its head is on it):
   * each is set landed in `output`, and their ids returned. Waits for every landing still going on first.
   */
  async landedAfterAll(output: BatchOutput, repo: string, target: string): Promise<string[]> {
    const found: string[] = [];
    for (const task of output.tasks) {
      const landing = this.started.get(task.id);
      if (landing === undefined || task.status === 'landed') continue;
      await landing.done;
      const onTarget = await git(repo, [
        'merge-base',
        '--is-ancestor',
        landing.head,
        `refs/heads/${target}`,
      ]).then(
        () => true,
        () => false,
      );
      if (!onTarget) continue;
      Object.assign(task, { status: 'landed', note: null, conflicts: [] });
      found.push(task.id);
    }
    return found;
  }
}
