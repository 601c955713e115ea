import { MAX_ANSWER_CHARS } from '../../../contract/answers.js';

/**
 * The dashboard page's one script. It reads the fleet through the page's own JSON API (same origin: the token of the
 * page's address goes in the x-ralph-token header, and in the address of each run's page it links to) every POLL_MS, and writes every value from the database as text (textContent, never
 * markup), so an objective or an id holding HTML shows as what it is.
 */
export const DASHBOARD_SCRIPT = `(() => {
  'use strict';
  const POLL_MS = 1000;
  const TOKEN = new URLSearchParams(location.search).get('token') || '';
  const $ = (id) => document.getElementById(id);
  const state = { status: '', cursors: [''], busy: false, drafts: {}, focused: null };
  const cell = (row, text, className) => {
    const td = document.createElement('td');
    td.textContent = text;
    if (className) td.className = className;
    row.appendChild(td);
    return td;
  };
  const time = (ms) => (ms == null ? '' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19));
  const duration = (from, to) => {
    if (from == null) return '';
    const s = Math.max(0, Math.round(((to == null ? Date.now() : to) - from) / 1000));
    return s < 60 ? s + 's' : s < 3600 ? Math.floor(s / 60) + 'm ' + (s % 60) + 's' : Math.floor(s / 3600) + 'h ' + Math.floor((s % 3600) / 60) + 'm';
  };
  const get = async (path) => {
    const response = await fetch(path, { cache: 'no-store', headers: { 'x-ralph-token': TOKEN } });
    if (!response.ok) throw new Error(path + ': ' + response.status);
    return response.json();
  };
  const cancel = async (runId) => {
    if (!window.confirm('Cancel run ' + runId + '? Its agent is stopped, as ralph cancel does.')) return;
    const response = await fetch('/api/runs/' + encodeURIComponent(runId) + '/cancel', {
      method: 'POST',
      headers: { 'x-ralph-dashboard': 'cancel', 'x-ralph-token': TOKEN },
    });
    const body = await response.json().catch(() => ({}));
    $('note').textContent = response.ok ? 'Cancelled ' + runId : 'Could not cancel ' + runId + ': ' + (body.error || response.status);
    refresh();
  };
  const answer = async (runId, body) => {
    const response = await fetch('/api/runs/' + encodeURIComponent(runId) + '/answer', {
      method: 'POST',
      headers: { 'x-ralph-dashboard': 'answer', 'x-ralph-token': TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const reply = await response.json().catch(() => ({}));
    if (response.ok) delete state.drafts[runId];
    $('note').textContent = response.ok
      ? (body.giveUp ? 'Gave up on ' : 'Answered ') + 'round ' + reply.round + ' of ' + runId
      : 'Could not answer ' + runId + ': ' + (reply.error || response.status);
    refresh();
  };
  // A waiting run's question under its status, and the box to answer it in. What is typed there survives the
  // page's redraws (kept per run until it is sent); while a box has the focus the list is not redrawn.
  const questionBox = (run) => {
    const box = document.createElement('form');
    box.className = 'question';
    const asked = document.createElement('div');
    asked.className = 'asked';
    asked.textContent = 'Round ' + run.question.round + ' asks: ' + run.question.question;
    asked.title = 'waits until ' + time(run.question.deadline);
    const text = document.createElement('textarea');
    text.name = 'answer';
    text.rows = 2;
    text.maxLength = ${MAX_ANSWER_CHARS};
    text.value = state.drafts[run.runId] || '';
    text.addEventListener('input', () => { state.drafts[run.runId] = text.value; });
    text.addEventListener('focus', () => { state.focused = run.runId; });
    text.addEventListener('blur', () => { if (state.focused === run.runId) state.focused = null; });
    const send = document.createElement('button');
    send.type = 'submit';
    send.className = 'answer';
    send.textContent = 'Answer';
    const giveUp = document.createElement('button');
    giveUp.type = 'button';
    giveUp.className = 'give-up';
    giveUp.textContent = 'Give up';
    giveUp.addEventListener('click', () => answer(run.runId, { giveUp: true }));
    box.addEventListener('submit', (event) => {
      event.preventDefault();
      answer(run.runId, { text: text.value });
    });
    box.append(asked, text, send, giveUp);
    return box;
  };
  // A run's last verdict under its status: the evaluator's word, the findings of a rejection in its tooltip.
  const evaluationLine = (evaluation) => {
    const line = document.createElement('div');
    line.className = 'evaluation verdict-' + evaluation.verdict;
    const count = evaluation.findingCount;
    line.textContent =
      evaluation.verdict === 'accept'
        ? 'evaluator accepted round ' + evaluation.round
        : 'evaluator rejected round ' + evaluation.round + ': ' + count + (count === 1 ? ' finding' : ' findings');
    const more = count > evaluation.findings.length ? ['… ' + (count - evaluation.findings.length) + ' more'] : [];
    line.title = [evaluation.evaluator].concat(evaluation.findings, more).join('\\n');
    return line;
  };
  const drawRuns = (page) => {
    const body = $('runs-body');
    body.replaceChildren();
    for (const run of page.runs) {
      const row = document.createElement('tr');
      row.dataset.run = run.runId;
      row.dataset.state = run.state;
      const id = document.createElement('a');
      id.href = '/runs/' + encodeURIComponent(run.runId) + '?token=' + encodeURIComponent(TOKEN);
      id.textContent = run.runId;
      const first = cell(row, '');
      first.appendChild(id);
      cell(row, run.objective == null ? '' : run.objective, 'objective');
      const status = cell(row, run.state, 'state s-' + run.state);
      if (run.evaluation) status.appendChild(evaluationLine(run.evaluation));
      if (run.sandboxed) {
        const line = document.createElement('div');
        line.className = 'sandbox';
        line.textContent = run.sandboxed;
        status.appendChild(line);
      }
      if (run.question) status.appendChild(questionBox(run));
      cell(row, run.workerId == null ? '' : run.workerId);
      cell(row, String(run.roundsDone), 'rounds');
      cell(row, run.cost, 'cost');
      cell(row, time(run.startedAt == null ? run.createdAt : run.startedAt));
      // A run cancelled before a worker took it (or whose start DBOS cleared) counts from its submission.
      cell(row, duration(run.startedAt == null && run.endedAt != null ? run.createdAt : run.startedAt, run.endedAt), 'duration');
      const actions = cell(row, '');
      if (run.state === 'queued' || run.state === 'running') {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'cancel';
        button.textContent = 'Cancel';
        button.addEventListener('click', () => cancel(run.runId));
        actions.appendChild(button);
      }
      body.appendChild(row);
    }
    if (page.runs.length === 0) {
      const row = document.createElement('tr');
      cell(row, 'No runs' + (state.status === '' ? '' : ' ' + state.status) + '.', 'none').colSpan = 9;
      body.appendChild(row);
    }
    $('older').disabled = page.next == null;
    $('older').dataset.next = page.next == null ? '' : page.next;
    $('newer').disabled = state.cursors.length <= 1;
    $('page-number').textContent = 'page ' + state.cursors.length;
    const counts = Object.entries(page.counts || {}).map(([k, v]) => k + ' ' + v);
    $('counts').textContent = counts.length === 0 ? 'no runs yet' : counts.join(' · ');
  };
  const drawWorkers = (workers) => {
    const body = $('workers-body');
    body.replaceChildren();
    for (const worker of workers) {
      const row = document.createElement('tr');
      row.dataset.worker = worker.workerId;
      cell(row, worker.workerId);
      cell(row, worker.live ? 'live until ' + time(worker.leaseUntil) : 'expired', worker.live ? 'live' : 'expired');
      cell(row, time(worker.lastHeartbeat));
      cell(row, String(worker.runsHeld));
      cell(row, 'pid ' + worker.pid + ' on ' + worker.hostname);
      body.appendChild(row);
    }
    if (workers.length === 0) {
      const row = document.createElement('tr');
      cell(row, 'No workers.', 'none').colSpan = 5;
      body.appendChild(row);
    }
  };
  const refresh = async () => {
    if (state.busy) return;
    state.busy = true;
    try {
      const query = new URLSearchParams();
      if (state.status !== '') query.set('status', state.status);
      const cursor = state.cursors[state.cursors.length - 1];
      if (cursor !== '') query.set('cursor', cursor);
      const [page, workers] = await Promise.all([get('/api/runs?' + query), get('/api/workers')]);
      if (state.focused === null) drawRuns(page);
      drawWorkers(workers.workers);
      $('updated').textContent = 'Updated ' + time(Date.now());
    } catch (error) {
      $('updated').textContent = 'Not updated: ' + error.message;
    } finally {
      state.busy = false;
    }
  };
  $('status').addEventListener('change', () => {
    state.status = $('status').value;
    state.cursors = [''];
    refresh();
  });
  $('older').addEventListener('click', () => {
    const next = $('older').dataset.next;
    if (!next) return;
    state.cursors.push(next);
    refresh();
  });
  $('newer').addEventListener('click', () => {
    if (state.cursors.length > 1) state.cursors.pop();
    refresh();
  });
  refresh();
  setInterval(refresh, POLL_MS);
})();`;
