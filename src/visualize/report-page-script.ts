/**
 * The run page's one inline script, plain ES2017 for any browser. It reads the run model from
 * `<script id="run-model" type="application/json">` and marks the path on the statechart (a nested state with the
 * boxes around it); on a live page it follows the server's `run` events (Server-Sent Events), each carrying the new
 * model and the page's re-rendered regions, swapping them in place and keeping the rounds a person opened or closed
 * as they were. Once the model has an ending
 * it stops listening, so a server that stops with the run leaves no reconnect errors behind. A live page with an
 * answer box (`--ask`) shows it while the run waits for an answer, the question as text, and posts the answer or a
 * give-up with the page's token (from its own address) in the x-ralph-token header.
 */
export const RUN_PAGE_SCRIPT = `(function () {
  'use strict';
  var modelElement = document.getElementById('run-model');
  var chosen = {};

  function toneOf(ending) {
    if (ending.result.ok) return ending.result.envelope.result.status === 'complete' ? 'good' : 'warn';
    return ending.result.failure.code === 'cancelled' ? 'muted' : 'bad';
  }

  // A state of the path is its key in the recording: a path, dot-separated, for a nested machine (running.round.x),
  // a bare key for a flat one. A bare key that the diagram draws inside a box (a recording made before the machine
  // was nested) is found by its last part, when only one state ends with it.
  function resolve(svg, state) {
    if (document.getElementById('state-' + state)) return state;
    var found = Array.prototype.filter.call(svg.querySelectorAll('[id^="state-"]'), function (element) {
      return element.id.slice(-state.length - 1) === '.' + state;
    });
    return found.length === 1 ? found[0].id.slice('state-'.length) : state;
  }

  // A state and the boxes around it, outermost first: running, running.round, running.round.x.
  function lineage(state) {
    var parts = state.split('.');
    return parts.map(function (_, index) { return parts.slice(0, index + 1).join('.'); });
  }

  function hasClass(element, prefix, states) {
    return states.some(function (state) { return element.classList.contains(prefix + state); });
  }

  function mark(model) {
    var svg = document.querySelector('.chart-box svg');
    if (!svg) return;
    var marks = ['visited', 'current', 'run-final', 'taken', 'tone-good', 'tone-warn', 'tone-bad', 'tone-muted'];
    var nodes = svg.querySelectorAll('.node, .state, .edge, .transition');
    Array.prototype.forEach.call(nodes, function (element) {
      marks.forEach(function (name) { element.classList.remove(name); });
    });
    var path = model ? model.path : [];
    var edges = svg.querySelectorAll('.edge, .transition');
    var visit = function (id) {
      var element = document.getElementById(id);
      if (element) element.classList.add('visited');
    };
    // The diagram's initial pseudo-state (id "initial") leads to the first state the run entered. A step marks the
    // state it entered and every box around it, and takes the edges from the state it left, or else the innermost
    // box around it that has some, to the state it entered or a box around it (an edge to a box enters at the box's
    // start); entering a box through its start takes the box's entry arrow too.
    var states = path.length > 0 ? ['initial'].concat(path.map(function (entry) { return resolve(svg, entry.state); })) : [];
    states.forEach(function (state, index) {
      if (index === 0) return visit('initial');
      var into = lineage(state);
      into.forEach(function (box) { visit('state-' + box); });
      var left = states[index - 1] === 'initial' ? ['initial'] : lineage(states[index - 1]);
      // As XState tries the innermost state's transitions first, the innermost source with an edge there is the one.
      for (var depth = left.length - 1; depth >= 0; depth -= 1) {
        var taken = Array.prototype.filter.call(edges, function (edge) {
          return hasClass(edge, 'from-', [left[depth]]) && hasClass(edge, 'to-', into);
        });
        taken.forEach(function (edge) { edge.classList.add('taken'); });
        if (taken.length > 0) break;
      }
      into.forEach(function (box) {
        var entry = document.getElementById('edge-initial-' + box + '-0');
        if (left.indexOf(box) >= 0 || !entry || !hasClass(entry, 'to-', into)) return;
        visit('initial-' + box);
        entry.classList.add('taken');
      });
    });
    svg.classList.toggle('has-path', path.length > 0);
    if (model && model.ending) {
      var final = document.getElementById('state-' + resolve(svg, model.ending.finalState));
      if (final) final.classList.add('run-final', 'tone-' + toneOf(model.ending));
    } else if (path.length > 0) {
      var current = document.getElementById('state-' + states[states.length - 1]);
      if (current) current.classList.add('current');
    }
  }

  function openTarget() {
    var target = location.hash.length > 1 ? document.getElementById(location.hash.slice(1)) : null;
    if (target && target.tagName === 'DETAILS') target.open = true;
  }

  document.addEventListener('click', function (event) {
    var button = event.target.closest('button[data-details]');
    if (button) {
      var open = button.getAttribute('data-details') === 'open';
      Array.prototype.forEach.call(document.querySelectorAll('details.round'), function (details) {
        details.open = open;
        chosen[details.id] = open;
      });
      return;
    }
    var chart = event.target.closest('.chart-box');
    if (chart) {
      chart.classList.toggle('natural');
      return;
    }
    var summary = event.target.closest('details.round > summary');
    if (summary) chosen[summary.parentElement.id] = !summary.parentElement.open;
  });
  window.addEventListener('hashchange', openTarget);

  function swap(name, html) {
    var region = document.querySelector('[data-region="' + name + '"]');
    if (!region || typeof html !== 'string') return;
    region.innerHTML = html;
    Array.prototype.forEach.call(region.querySelectorAll('details.round'), function (details) {
      if (Object.prototype.hasOwnProperty.call(chosen, details.id)) details.open = chosen[details.id];
    });
  }

  var box = document.getElementById('answer-box');
  var asking = null;

  function waitingRound(model) {
    if (!model || model.ending) return null;
    var last = model.rounds[model.rounds.length - 1];
    return last && last.question && last.question.outcome === 'waiting' ? last : null;
  }

  function setBusy(busy) {
    ['answer-send', 'answer-give-up', 'answer-text'].forEach(function (id) {
      document.getElementById(id).disabled = busy;
    });
  }

  // The box follows the model: shown with the question while the run waits, hidden once it goes on or ends. What a
  // person typed stays while the same round waits.
  function showQuestion(model) {
    if (!box) return;
    var round = waitingRound(model);
    if (!round) {
      box.hidden = true;
      asking = null;
      return;
    }
    if (asking === round.round) return;
    asking = round.round;
    document.getElementById('answer-round').textContent = String(round.round);
    document.getElementById('answer-question').textContent = round.question.question;
    document.getElementById('answer-note').textContent = '';
    setBusy(false);
    box.hidden = false;
  }

  function send(answer) {
    if (asking === null) return;
    var note = document.getElementById('answer-note');
    var token = new URLSearchParams(location.search).get('token') || '';
    setBusy(true);
    fetch(box.getAttribute('data-answer'), {
      method: 'POST',
      cache: 'no-store',
      headers: { 'content-type': 'application/json', 'x-ralph-token': token },
      body: JSON.stringify({ round: asking, answer: answer }),
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (body) {
        if (response.ok) {
          note.textContent = box.getAttribute(answer.kind === 'answer' ? 'data-sent' : 'data-gave-up');
          return;
        }
        note.textContent = body.error || 'refused (' + response.status + ')';
        setBusy(false);
      });
    }).catch(function (error) {
      note.textContent = String(error);
      setBusy(false);
    });
  }

  if (box) {
    document.getElementById('answer-form').addEventListener('submit', function (event) {
      event.preventDefault();
      send({ kind: 'answer', text: document.getElementById('answer-text').value });
    });
    document.getElementById('answer-give-up').addEventListener('click', function () {
      send({ kind: 'give-up' });
    });
  }

  var model = JSON.parse(modelElement.textContent);
  mark(model);
  showQuestion(model);
  openTarget();

  var events = document.body.getAttribute('data-events');
  if (!events || (model && model.ending)) return;
  var source = new EventSource(events);
  var note = document.getElementById('live-note');
  source.addEventListener('open', function () { if (note) note.textContent = 'Live: following the run.'; });
  source.addEventListener('error', function () {
    if (note) note.textContent = 'Live: connection lost, retrying…';
  });
  source.addEventListener('run', function (event) {
    var update = JSON.parse(event.data);
    Object.keys(update.regions).forEach(function (name) { swap(name, update.regions[name]); });
    modelElement.textContent = JSON.stringify(update.model);
    document.title = update.title;
    mark(update.model);
    showQuestion(update.model);
    if (update.model && update.model.ending) {
      source.close();
      if (note) note.textContent = 'Live: the run has ended.';
    }
  });
})();
`;
