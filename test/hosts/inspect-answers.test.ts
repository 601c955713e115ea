import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ANSWER_BODY_BYTES } from '../../src/hosts/cli/inspect-answers.js';
import { type InspectServer, startInspectServer } from '../../src/hosts/cli/inspect-server.js';
import {
  type AnswerInbox,
  type AnswerOutcome,
  createAnswerInbox,
  type RalphQuestion,
} from '../../src/index.js';
import { httpGet } from '../support/http.js';
import { blockedReport } from '../support/round-reports.js';

// `POST /answer` of the live inspector (`--ask`): the only way the page gives a run its answer. It takes the page's
// token, its own origin, JSON of a bounded size and an answer to the round that waits; anything else is refused and
// delivers nothing.

const MACHINE_SVG = readFileSync(new URL('../fixtures/machine/ralph-like.svg', import.meta.url), 'utf8');

const servers: InspectServer[] = [];
const waits: AbortController[] = [];
afterEach(async () => {
  for (const wait of waits.splice(0)) wait.abort();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** An inspector with an inbox, and a run that waits on it with round 2's question. */
async function waitingServer() {
  const inbox: AnswerInbox = createAnswerInbox();
  const server = await startInspectServer({ port: 0, machineSvg: MACHINE_SVG, answers: inbox });
  servers.push(server);
  const question: RalphQuestion = {
    runId: 'run-asks',
    round: 2,
    maxRounds: 4,
    question: 'Which database?',
    report: blockedReport('Which database?'),
    waitMs: 60_000,
  };
  const wait = new AbortController();
  waits.push(wait);
  const answered: Promise<AnswerOutcome> = inbox.source(question, wait.signal);
  answered.catch(() => {});
  const token = new URL(server.url).searchParams.get('token') as string;
  return { server, inbox, answered, token, answerUrl: new URL('/answer', server.url).href };
}

/** One POST with these headers and body; resolves with the status and the body read as JSON (or text). */
function post(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: { error?: string; delivered?: boolean; round?: number } }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(url), { method: 'POST', headers }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = { error: text };
        }
        resolve({ status: response.statusCode ?? 0, body: parsed as never });
      });
    });
    // The server may answer and close before a body past its bound is all sent.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' ? undefined : reject(error)));
    req.end(body);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };
const answerBody = (text: string, round = 2) => JSON.stringify({ round, answer: { kind: 'answer', text } });

describe('POST /answer of the live inspector', () => {
  it('hands the answer to the waiting run, named as the live page', async () => {
    const { answered, token, answerUrl, inbox } = await waitingServer();
    const response = await post(answerUrl, answerBody('  Postgres 16  '), {
      ...JSON_TYPE,
      'x-ralph-token': token,
    });
    expect(response).toEqual({ status: 200, body: { delivered: true, round: 2 } });
    expect(await answered).toEqual({ kind: 'answer', text: 'Postgres 16', by: 'live page' });
    expect(inbox.waiting()).toEqual([]);
  });

  it('hands a give-up over as one', async () => {
    const { answered, token, answerUrl } = await waitingServer();
    const body = JSON.stringify({ round: 2, answer: { kind: 'give-up' } });
    expect((await post(answerUrl, body, { ...JSON_TYPE, 'x-ralph-token': token })).status).toBe(200);
    expect(await answered).toEqual({ kind: 'give-up', by: 'live page' });
  });

  it('refuses, delivering nothing: no token, a wrong one, another origin, no JSON, too large, malformed, empty, another round', async () => {
    const { token, answerUrl, inbox, server } = await waitingServer();
    const withToken = { ...JSON_TYPE, 'x-ralph-token': token };
    const cases: [string, string, Record<string, string>, number, RegExp][] = [
      ['no token', answerBody('a'), JSON_TYPE, 403, /carries the token/],
      ['a wrong token', answerBody('a'), { ...JSON_TYPE, 'x-ralph-token': 'x'.repeat(43) }, 403, /token/],
      [
        'another origin',
        answerBody('a'),
        { ...withToken, origin: 'http://attacker.example' },
        403,
        /from the run page only/,
      ],
      [
        'a form post',
        'answer=a',
        { 'content-type': 'application/x-www-form-urlencoded', 'x-ralph-token': token },
        415,
        /JSON/,
      ],
      ['too large', answerBody('a'.repeat(MAX_ANSWER_BODY_BYTES)), withToken, 413, /at most/],
      ['not JSON', '{"round": 2,', withToken, 400, /no answer: not JSON/],
      ['no round', JSON.stringify({ answer: { kind: 'answer', text: 'a' } }), withToken, 400, /no answer/],
      [
        'an extra field',
        JSON.stringify({ round: 2, answer: { kind: 'answer', text: 'a', html: 1 } }),
        withToken,
        400,
        /no answer/,
      ],
      ['empty', answerBody('   '), withToken, 400, /cannot take an empty answer/],
      ['oversized', answerBody('a'.repeat(8_193)), withToken, 400, /at most 8192/],
      ['another round', answerBody('a', 1), withToken, 409, /round 1 does not wait/],
    ];
    for (const [name, body, headers, status, error] of cases) {
      const response = await post(answerUrl, body, headers);
      expect({ name, status: response.status }).toEqual({ name, status });
      expect(response.body.error).toMatch(error);
    }
    expect(inbox.waiting().map((question) => question.round)).toEqual([2]);
    // A POST anywhere else is no answer; the page itself still reads.
    expect((await post(new URL('/', server.url).href, answerBody('a'), withToken)).status).toBe(404);
    expect((await httpGet(server.url)).status).toBe(200);
  });

  it('refuses an answer when nothing waits', async () => {
    const { token, answerUrl, answered } = await waitingServer();
    const headers = { ...JSON_TYPE, 'x-ralph-token': token };
    expect((await post(answerUrl, answerBody('first'), headers)).status).toBe(200);
    const again = await post(answerUrl, answerBody('second'), headers);
    expect(again.status).toBe(409);
    expect(await answered).toMatchObject({ text: 'first' });
  });
});

describe('the live page of an inspector with answers', () => {
  it('carries the hidden answer box, and a page of a run that asks nothing keeps its look', async () => {
    const { server } = await waitingServer();
    const page = (await httpGet(server.url)).body;
    expect(page).toContain('<section class="card answer-box" id="answer-box" hidden data-answer="/answer"');
    const plain = await startInspectServer({ port: 0, machineSvg: MACHINE_SVG });
    servers.push(plain);
    expect((await httpGet(plain.url)).body).not.toContain('id="answer-box"');
    expect((await post(new URL('/answer', plain.url).href, answerBody('a'), JSON_TYPE)).status).toBe(405);
  });
});
