// Courier's web console: one page, a view per route (#/..., no reload), every number and every action through
// Courier's REST API with the operator's own credentials (the browser's login to this realm). Text from messages
// is only ever set as text, never as HTML.
'use strict';

const view = document.getElementById('view');
const REFRESH_MS = 5000;
let timer = null;

// ---- the API ---------------------------------------------------------------------------------------------------

/** Calls the API; resolves to the JSON answer (null for 204), rejects with the problem (status, title, detail). */
async function api(method, path, body) {
    const options = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
    if (body !== undefined) {
        options.headers['Content-Type'] = 'application/json';
        options.body = JSON.stringify(body);
    }
    const response = await fetch('../api/' + path, options);
    const text = await response.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
    if (!response.ok) {
        const problem = json || {};
        throw { status: response.status, title: problem.title || response.statusText, detail: problem.detail || text };
    }
    return json;
}

function showProblem(problem) {
    const box = document.getElementById('problem');
    if (!problem) { box.hidden = true; return; }
    box.textContent = (problem.status ? problem.status + ' ' : '') + (problem.title || 'Error')
        + (problem.detail ? ': ' + problem.detail : '');
    box.hidden = false;
}

function notice(text) {
    const box = document.getElementById('notice');
    box.textContent = text || '';
    box.hidden = !text;
}

/** Runs an action; shows its problem instead of failing. */
async function attempt(action) {
    try {
        showProblem(null);
        return await action();
    } catch (problem) {
        showProblem(problem.status ? problem : { title: String(problem) });
        return undefined;
    }
}

// ---- DOM helpers -----------------------------------------------------------------------------------------------

function h(tag, attributes, ...children) {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
        if (name.startsWith('on')) {
            element.addEventListener(name.substring(2), value);
        } else if (value !== undefined && value !== null && value !== false) {
            element.setAttribute(name, value === true ? '' : value);
        }
    }
    for (const child of children.flat(Infinity)) { // lists of lists of children are children too
        if (child !== undefined && child !== null) {
            element.append(child instanceof Node ? child : document.createTextNode(String(child)));
        }
    }
    return element;
}

function table(id, headings, rows) {
    return h('table', { id },
        h('thead', {}, h('tr', {}, headings.map(t => h('th', { class: /^[#]|\/s|age|count|ready|dead|depth|pending|waiting|attempt|sent|delivered|checks/i.test(t) ? 'num' : null }, t)))),
        h('tbody', {}, rows));
}

function num(value) {
    return h('td', { class: 'num' }, value === undefined || value === null ? '–' : value);
}

function link(href, text) {
    return h('a', { href }, text);
}

function pretty(value) {
    return h('pre', {}, JSON.stringify(value, null, 2));
}

function when(instant) {
    return instant ? instant.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '–';
}

/** Draws a page, unless another route was taken while it loaded ({@code live()} false). */
function render(live, ...children) {
    if (live()) view.replaceChildren(...children);
    return live();
}

function queryOf(hash) {
    const at = hash.indexOf('?');
    return new URLSearchParams(at < 0 ? '' : hash.substring(at + 1));
}

// ---- overview ----------------------------------------------------------------------------------------------------

const chartMemory = { times: [], series: new Map(), previous: null }; // the chart's memory, kept across visits
const HISTORY_POINTS = 120; // ten minutes at one point per 5 s
let chart = null;

function metricValue(metrics, name, tags) {
    const found = metrics.find(m => m.name === name
        && Object.entries(tags).every(([k, v]) => m.tags[k] === v));
    return found ? found.value : undefined;
}

function rate(current, previous, name, tags, seconds) {
    if (!previous || seconds <= 0) return undefined;
    // A counter appears with its first event: absent means none yet.
    const now = metricValue(current, name, tags) || 0;
    const before = metricValue(previous, name, tags) || 0;
    return Math.max(0, (now - before) / seconds);
}

async function overview(live = () => true) {
    const [queues, metrics, producers, topics] = await Promise.all([
        api('GET', 'queues'),
        api('GET', 'console/metrics').then(j => j.metrics).catch(p => { if (p.status === 403) return null; throw p; }),
        api('GET', 'producers').catch(p => { if (p.status === 403) return null; throw p; }),
        api('GET', 'topics').catch(p => { if (p.status === 403) return null; throw p; })
    ]);
    const now = Date.now() / 1000;
    const elapsed = chartMemory.previous ? now - chartMemory.previous.at : 0;
    const previous = chartMemory.previous ? chartMemory.previous.metrics : null;
    const rows = queues.queues.map(q => {
        const tags = { queue: q.name };
        const acked = metrics ? rate(metrics, previous, 'courier_queue_acked', tags, elapsed) : undefined;
        const sent = metrics ? rate(metrics, previous, 'courier_queue_sent', tags, elapsed) : undefined;
        record(q.name, q.ready, acked);
        return h('tr', { 'data-queue': q.name },
            h('td', {}, link('#/queue/' + encodeURIComponent(q.name), q.name)),
            h('td', { 'data-field': 'database' }, q.database),
            h('td', { class: 'num', 'data-field': 'depth' }, q.depth),
            h('td', { class: 'num', 'data-field': 'ready' }, q.ready),
            h('td', { class: 'num' }, Math.max(0, q.depth - q.ready - q.dead)),
            h('td', { class: 'num', 'data-field': 'dead' }, q.dead > 0 ? link('#/dead/' + encodeURIComponent(q.name), String(q.dead)) : '0'),
            num(q.oldestAgeSeconds == null ? '–' : q.oldestAgeSeconds.toFixed(1)),
            num(q.waiting),
            num(sent === undefined ? '–' : sent.toFixed(1)),
            num(acked === undefined ? '–' : acked.toFixed(1)));
    });
    chartMemory.times.push(now);
    if (chartMemory.times.length > HISTORY_POINTS) {
        chartMemory.times.shift();
        chartMemory.series.forEach(series => { series.at--; });
    }
    alignSeries();
    if (metrics) chartMemory.previous = { at: now, metrics };

    const sections = [
        h('h2', {}, 'Queues'),
        table('queues', ['Queue', 'Database', 'Depth', 'Ready', 'Scheduled or leased', 'Dead', 'Oldest ready age s', 'Waiting receivers', 'Sent/s', 'Acked/s'], rows),
        h('h2', {}, 'Throughput and depth'),
        h('div', { id: 'chart' }),
        h('p', { class: 'muted' }, 'Per queue: ready messages (left axis) and acks per second on this server (right axis), every 5 s.')
    ];
    if (topics && metrics) {
        const topicRows = [];
        for (const t of topics.topics) {
            const tag = { topic: t.name };
            for (const s of t.subscribers) {
                const stag = { topic: t.name, subscriber: s.name };
                topicRows.push(h('tr', {},
                    h('td', {}, t.name), h('td', {}, s.name),
                    num(metricValue(metrics, 'courier_topic_messages', { ...tag, state: 'pending' })),
                    num(metricValue(metrics, 'courier_topic_messages', { ...tag, state: 'sent' })),
                    num(metricValue(metrics, 'courier_subscriber_deliveries', { ...stag, state: 'delivered' })),
                    num(metricValue(metrics, 'courier_subscriber_consume_latency', stag) || 0),
                    h('td', { class: 'num' }, deadLink(metricValue(metrics, 'courier_subscriber_deliveries', { ...stag, state: 'dead' }), t.name, s.name))));
            }
        }
        sections.push(h('h2', {}, 'Topics and subscribers'),
            table('topics', ['Topic', 'Subscriber', 'Pending (topic)', 'Sent, not all consumed (topic)', 'Delivered, not consumed', 'Consumed (this server)', 'Dead deliveries'], topicRows));
    } else {
        sections.push(h('p', { class: 'muted' }, 'Topics, subscribers and metrics: admins only.'));
    }
    if (producers) {
        sections.push(h('h2', {}, 'Producers'), producerTable(producers.producers, metrics));
    }
    if (render(live, ...sections)) drawChart();
}

function deadLink(count, topic, subscriber) {
    if (!count) return count === undefined ? '–' : '0';
    return link('#/messages?topic=' + encodeURIComponent(topic) + '&subscriber=' + encodeURIComponent(subscriber)
        + '&deliveryState=DEAD', String(count));
}

function record(queue, ready, acked) {
    let series = chartMemory.series.get(queue);
    if (!series) {
        series = { ready: chartMemory.times.map(() => null), acked: chartMemory.times.map(() => null), at: -1 };
        chartMemory.series.set(queue, series);
    }
    series.ready.push(ready);
    series.acked.push(acked === undefined ? null : acked);
    series.at = chartMemory.times.length; // recorded for the point about to be added
}

/** Every series one point per time: a queue missing this time gets a gap, one gone from the window is dropped. */
function alignSeries() {
    for (const [name, series] of chartMemory.series) {
        if (series.at !== chartMemory.times.length - 1) {
            series.ready.push(null);
            series.acked.push(null);
        }
        for (const list of [series.ready, series.acked]) {
            while (list.length > chartMemory.times.length) list.shift();
        }
        if (series.ready.every(v => v === null)) chartMemory.series.delete(name);
    }
}

function drawChart() {
    const box = document.getElementById('chart');
    if (!box || typeof uPlot === 'undefined') return;
    const names = [...chartMemory.series.keys()].slice(0, 6);
    const length = chartMemory.times.length;
    const pad = list => Array(Math.max(0, length - list.length)).fill(null).concat(list.slice(-length));
    const data = [chartMemory.times.slice()];
    const series = [{}];
    const colours = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c', '#0891b2'];
    names.forEach((name, i) => {
        data.push(pad(chartMemory.series.get(name).ready));
        series.push({ label: name + ' ready', stroke: colours[i], scale: 'depth' });
        data.push(pad(chartMemory.series.get(name).acked));
        series.push({ label: name + ' acked/s', stroke: colours[i], dash: [6, 4], scale: 'rate' });
    });
    if (chart) chart.destroy(); // uPlot keeps every live chart (and its listeners) until destroyed
    box.replaceChildren();
    chart = new uPlot({
        width: 900, height: 260, series,
        scales: { x: { time: true }, depth: { auto: true }, rate: { auto: true } },
        axes: [{}, { scale: 'depth', label: 'ready' }, { scale: 'rate', side: 1, label: 'acked/s', grid: { show: false } }]
    }, data, box);
}

function producerTable(producers, metrics) {
    return table('producers', ['Producer', 'Circuit', 'Pending', 'Checks due', 'Check-backs committed', 'Rolled back', 'Failed', 'Last error'],
        producers.map(p => h('tr', {},
            h('td', {}, p.name),
            h('td', { class: p.circuit === 'OPEN' ? 'bad' : null }, p.circuit),
            num(p.pending), num(p.checksDue),
            num(metrics ? metricValue(metrics, 'courier_producer_check_backs', { producer: p.name, answer: 'committed' }) : undefined),
            num(metrics ? metricValue(metrics, 'courier_producer_check_backs', { producer: p.name, answer: 'rolled_back' }) : undefined),
            num(metrics ? metricValue(metrics, 'courier_producer_check_backs', { producer: p.name, answer: 'failed' }) : undefined),
            h('td', { class: 'muted' }, p.lastError || ''))));
}

// ---- one queue ---------------------------------------------------------------------------------------------------

const QUEUE_STATES = ['', 'READY', 'SCHEDULED', 'LEASED', 'DEAD'];

async function queuePage(name, query, live = () => true) {
    const filters = ['state', 'key', 'minAttempts', 'deliverFrom', 'deliverTo'];
    const params = new URLSearchParams({ limit: '50' });
    for (const key of [...filters, 'after']) {
        if (query.get(key)) params.set(key, query.get(key));
    }
    const [info, page] = await Promise.all([
        api('GET', 'queues/' + encodeURIComponent(name)),
        api('GET', 'queues/' + encodeURIComponent(name) + '/messages?' + params)
    ]);
    const base = '#/queue/' + encodeURIComponent(name);
    const chosen = new URLSearchParams();
    filters.forEach(key => { if (query.get(key)) chosen.set(key, query.get(key)); });
    const form = h('form', { class: 'bar', id: 'filters', onsubmit: e => {
        e.preventDefault();
        const next = new URLSearchParams();
        for (const input of e.target.elements) { if (input.name && input.value) next.set(input.name, input.value); }
        location.hash = base + (next.toString() ? '?' + next : '');
    } },
    'State ', h('select', { id: 'state', name: 'state' }, QUEUE_STATES.map(s => h('option', { value: s, selected: s === (query.get('state') || '') }, s || 'all states'))),
    h('input', { name: 'key', placeholder: 'idempotency key', value: query.get('key') || '' }),
    h('input', { name: 'minAttempts', type: 'number', min: '0', placeholder: 'min attempts', value: query.get('minAttempts') || '' }),
    h('input', { name: 'deliverFrom', placeholder: 'deliver from (ISO instant)', value: query.get('deliverFrom') || '' }),
    h('input', { name: 'deliverTo', placeholder: 'deliver to', value: query.get('deliverTo') || '' }),
    h('button', { type: 'submit' }, 'Filter'));
    render(live, 
        h('h2', {}, 'Queue ', name),
        h('p', {}, `in database ${info.database}; depth ${info.depth}, ready ${info.ready}, dead ${info.dead}; lease ${info.leaseSeconds} s, ${info.maxAttempts} attempts `,
            info.dead > 0 ? link('#/dead/' + encodeURIComponent(name), '→ dead letters') : ''),
        form,
        messageTable(page.messages, m => base + '/' + encodeURIComponent(m.id)),
        pager(base + '?' + (chosen.toString() ? chosen + '&' : ''), page.next));
}

function messageTable(messages, href, selectable) {
    return table('messages', [selectable ? '' : null, 'Id', 'State', 'Deliver at', 'Attempt', 'Created', 'Last error'].filter(x => x !== null),
        messages.map(m => h('tr', { 'data-id': m.id },
            selectable ? h('td', {}, h('input', { type: 'checkbox', 'data-select': m.id })) : null,
            h('td', {}, link(href(m), m.id)), h('td', {}, m.state), h('td', {}, when(m.deliverAt)),
            num(m.attempt), h('td', {}, when(m.createdAt)), h('td', { class: 'muted' }, m.lastError || ''))));
}

function pager(base, next) {
    return next ? h('p', {}, link(base + 'after=' + encodeURIComponent(next), 'next page →')) : h('p', { class: 'muted' }, 'end of list');
}

async function queueMessage(name, id, live = () => true) {
    const m = await api('GET', 'queues/' + encodeURIComponent(name) + '/messages/' + encodeURIComponent(id));
    render(live, h('h2', {}, 'Message ', id),
        h('p', {}, link('#/queue/' + encodeURIComponent(name), '← queue ' + name)),
        messageDetails(m));
}

function messageDetails(m) {
    return h('div', { id: 'message' },
        table('fields', ['Field', 'Value'], [
            ['state', m.state], ['attempt', m.attempt], ['deliver at', when(m.deliverAt)], ['created', when(m.createdAt)],
            ['lease expires', when(m.leaseExpiresAt)], ['key', m.key || '–'], ['last error', m.lastError || '–'],
            ['dead since', when(m.deadAt)]].map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, v)))),
        h('h2', {}, 'Payload (' + m.payloadType + ')'), pretty(m.payload),
        h('h2', {}, 'Headers'), pretty(m.headers),
        h('h2', {}, 'History'),
        m.history ? table('history', ['Attempt', 'Failed at', 'Kind', 'Reason'],
            m.history.map(a => h('tr', {}, num(a.attempt), h('td', {}, when(a.failedAt)), h('td', {}, a.kind), h('td', {}, a.reason || ''))))
            : h('p', { class: 'muted' }, 'no failed attempt'));
}

// ---- dead letters ------------------------------------------------------------------------------------------------

async function deadPage(name, query, live = () => true) {
    const params = new URLSearchParams({ limit: '50' });
    if (query.get('after')) params.set('after', query.get('after'));
    const page = await api('GET', 'queues/' + encodeURIComponent(name) + '/dead?' + params);
    const path = 'queues/' + encodeURIComponent(name) + '/dead';
    const selected = () => [...view.querySelectorAll('input[data-select]:checked')].map(b => b.getAttribute('data-select'));
    const rateInput = h('input', { id: 'rate', type: 'number', min: '0.001', step: 'any', placeholder: 'all at once', size: 10 });
    const rateValue = () => rateInput.value ? { ratePerSecond: Number(rateInput.value) } : {};
    const act = async (call, done) => {
        const answer = await attempt(call);
        if (answer !== undefined) {
            notice(done(answer));
            await route();
        }
    };
    render(live, 
        h('h2', {}, 'Dead letters of ', link('#/queue/' + encodeURIComponent(name), name)),
        h('div', { class: 'bar' },
            h('button', { id: 'replay-selected', onclick: () => {
                const ids = selected();
                if (!ids.length) { showProblem({ title: 'Nothing selected', detail: 'tick the dead letters to replay' }); return; }
                act(() => api('POST', path + '/replay', { ids, ...rateValue() }), a => `replayed ${a.replayed}`);
            } }, 'Replay selected'),
            h('button', { id: 'replay-all', onclick: () => confirm(`Replay every dead letter of ${name}?`) && act(() => api('POST', path + '/replay', { all: true, ...rateValue() }), a => `replayed ${a.replayed}`) }, 'Replay all'),
            'at', rateInput, 'per second',
            h('button', { id: 'purge-selected', onclick: () => {
                const ids = selected(); // no ids would purge them all: refuse instead
                if (!ids.length) { showProblem({ title: 'Nothing selected', detail: 'tick the dead letters to purge' }); return; }
                if (confirm(`Delete ${ids.length} dead letters for good?`)) {
                    act(() => api('DELETE', path + '?' + ids.map(id => 'id=' + encodeURIComponent(id)).join('&')), a => `purged ${a.purged}`);
                }
            } }, 'Purge selected'),
            h('button', { id: 'purge-all', onclick: () => confirm(`Delete every dead letter of ${name} for good?`)
                && act(() => api('DELETE', path), a => `purged ${a.purged}`) }, 'Purge all')),
        page.messages.length ? messageTable(page.messages, m => '#/dead/' + encodeURIComponent(name) + '/' + encodeURIComponent(m.id), true)
            : h('p', { id: 'no-dead' }, 'No dead letters.'),
        pager('#/dead/' + encodeURIComponent(name) + '?', page.next));
}

async function deadMessage(name, id, live = () => true) {
    const m = await api('GET', 'queues/' + encodeURIComponent(name) + '/dead/' + encodeURIComponent(id));
    const editor = h('textarea', { id: 'payload' }, JSON.stringify(m.payload, null, 2));
    render(live, h('h2', {}, 'Dead letter ', id),
        h('p', {}, link('#/dead/' + encodeURIComponent(name), '← dead letters of ' + name)),
        messageDetails(m),
        h('h2', {}, 'Replay with this payload'), editor,
        h('div', { class: 'bar' }, h('button', { id: 'replay-edited', onclick: async () => {
            let payload;
            try { payload = JSON.parse(editor.value); } catch (e) { showProblem({ title: 'The payload is not JSON', detail: e.message }); return; }
            const answer = await attempt(() => api('POST', 'queues/' + encodeURIComponent(name) + '/dead/replay', { ids: [id], payload }));
            if (answer !== undefined) { pendingNotice = `replayed ${answer.replayed}`; location.hash = '#/dead/' + encodeURIComponent(name); }
        } }, 'Replay edited')));
}

// ---- reliable messages -------------------------------------------------------------------------------------------

const RMS_FILTERS = { state: ['', 'PENDING', 'SENT', 'COMPLETED', 'CANCELLED', 'DEAD'], deliveryState: ['', 'DELIVERED', 'CONSUMED', 'DEAD'] };

async function messagesPage(query, live = () => true) {
    const params = new URLSearchParams({ limit: '50' });
    for (const key of ['state', 'topic', 'producer', 'subscriber', 'deliveryState', 'after']) {
        if (query.get(key)) params.set(key, query.get(key));
    }
    const page = await api('GET', 'messages?' + params);
    const form = h('form', { class: 'bar', id: 'filters', onsubmit: e => {
        e.preventDefault();
        const chosen = new URLSearchParams();
        for (const input of e.target.elements) { if (input.name && input.value) chosen.set(input.name, input.value); }
        location.hash = '#/messages?' + chosen;
    } },
    Object.entries(RMS_FILTERS).map(([key, values]) => h('label', {}, key, ' ', h('select', { name: key }, values.map(v => h('option', { value: v, selected: v === (query.get(key) || '') }, v || 'any'))))),
    ['topic', 'producer', 'subscriber'].map(key => h('input', { name: key, placeholder: key, value: query.get(key) || '' })),
    h('button', { type: 'submit' }, 'Filter'));
    const rows = page.messages.map(m => h('tr', { 'data-id': m.id },
        h('td', {}, link('#/message/' + encodeURIComponent(m.id), m.id)), h('td', {}, m.topic), h('td', {}, m.producer), h('td', {}, m.state),
        h('td', {}, m.deliveries.map(d => `${d.subscriber}: ${d.state}`).join(', ')), h('td', {}, when(m.updatedAt))));
    const next = new URLSearchParams(params);
    render(live, h('h2', {}, 'Reliable messages'), form,
        table('rms', ['Id', 'Topic', 'Producer', 'State', 'Deliveries', 'Updated'], rows),
        page.next !== null && page.next !== undefined
            ? h('p', {}, link('#/messages?' + (next.set('after', page.next), next), 'next page →')) : h('p', { class: 'muted' }, 'end of list'));
}

async function rmsMessage(id, live = () => true) {
    const m = await api('GET', 'messages/' + encodeURIComponent(id));
    const act = async (call, text) => {
        const answer = await attempt(call);
        if (answer !== undefined) { notice(text); await route(); }
    };
    render(live, h('h2', {}, 'Reliable message ', id),
        table('fields', ['Field', 'Value'], [['topic', m.topic], ['producer', m.producer], ['state', m.state], ['checks', m.checks],
            ['next check', when(m.nextCheckAt)], ['deliver at', when(m.deliverAt)], ['last error', m.lastError || '–'], ['created', when(m.createdAt)]]
            .map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, v)))),
        m.state === 'DEAD' ? h('div', { class: 'bar' }, h('button', { id: 'resume', onclick: () => act(() => api('POST', 'messages/' + encodeURIComponent(id) + '/resume'), 'resumed') }, 'Resume (check back again)')) : '',
        h('h2', {}, 'Deliveries'),
        table('ledger', ['Subscriber', 'State', 'Attempts', 'Retry limit', 'Next attempt', 'Consumed', 'Last error', ''],
            m.deliveries.map(d => h('tr', { 'data-subscriber': d.subscriber },
                h('td', {}, d.subscriber), h('td', { class: d.state === 'DEAD' ? 'bad' : null }, d.state), num(d.attempts), num(d.retryLimit),
                h('td', {}, when(d.nextAttemptAt)), h('td', {}, when(d.consumedAt)), h('td', { class: 'muted' }, d.lastError || ''),
                h('td', {}, d.state === 'DEAD' ? h('button', { 'data-replay': d.subscriber, onclick: () => act(() => api('POST', 'messages/' + encodeURIComponent(id) + '/deliveries/' + encodeURIComponent(d.subscriber) + '/replay'), 'replayed to ' + d.subscriber) }, 'Replay') : '')))),
        h('h2', {}, 'Payload'), pretty(m.payload), h('h2', {}, 'Headers'), pretty(m.headers),
        h('h2', {}, 'History'),
        table('history', ['At', 'Subscriber', 'From', 'To', 'Reason', 'Server'], (m.history || []).map(c => h('tr', {},
            h('td', {}, when(c.at)), h('td', {}, c.subscriber || ''), h('td', {}, c.from || ''), h('td', {}, c.to), h('td', {}, c.reason || ''), h('td', { class: 'muted' }, c.server)))));
}

// ---- producers and audit -----------------------------------------------------------------------------------------

async function producersPage(live = () => true) {
    const [producers, metrics] = await Promise.all([api('GET', 'producers'),
        api('GET', 'console/metrics').then(j => j.metrics).catch(() => null)]);
    render(live, h('h2', {}, 'Producers'), producerTable(producers.producers, metrics),
        h('p', { class: 'muted' }, 'Check-back URLs: ', producers.producers.map(p => `${p.name} → ${p.checkBackUrl}`).join('; ')));
}

async function auditPage(query, live = () => true) {
    const params = new URLSearchParams({ limit: '100' });
    if (query.get('after')) params.set('after', query.get('after'));
    const page = await api('GET', 'audit?' + params);
    render(live, h('h2', {}, 'Audit'),
        table('audit', ['At', 'Who', 'Action', 'Target', 'Status'], page.entries.map(e => h('tr', {},
            h('td', {}, when(e.at)), h('td', {}, e.principal), h('td', {}, e.action), h('td', {}, e.target), num(e.status)))),
        page.next ? h('p', {}, link('#/audit?after=' + encodeURIComponent(page.next), 'older →')) : h('p', { class: 'muted' }, 'end of list'));
}

// ---- routing -----------------------------------------------------------------------------------------------------

let current = 0; // the latest route(): an older one that finishes late draws nothing

async function route() {
    const mine = ++current;
    clearTimeout(timer);
    timer = null;
    const hash = location.hash || '#/';
    const query = queryOf(hash);
    document.querySelectorAll('header a').forEach(a => a.classList.remove('active'));
    await attempt(async () => {
        const path = hash.substring(1).split('?')[0].split('/').filter(Boolean).map(decodeURIComponent);
        document.querySelectorAll('header a').forEach(a => a.classList.toggle('active', a.dataset.nav === (path[0] || 'overview')
            || (a.dataset.nav === 'messages' && path[0] === 'message')));
        const page = pageOf(path, query);
        if (path[0] === undefined) {
            // The overview follows itself: the next refresh is armed when this one ended, so none overlap.
            const refresh = async () => {
                await attempt(() => page(() => mine === current));
                if (mine === current) timer = setTimeout(refresh, REFRESH_MS);
            };
            await refresh();
        } else {
            await page(() => mine === current);
        }
    });
}

/** The page of a route: a function that loads it and draws it while {@code stillCurrent()}. */
function pageOf(path, query) {
    switch (path[0]) {
        case undefined: return overview;
        case 'queue': return live => (path[2] ? queueMessage(path[1], path[2], live) : queuePage(path[1], query, live));
        case 'dead': return live => (path[2] ? deadMessage(path[1], path[2], live) : deadPage(path[1], query, live));
        case 'messages': return live => messagesPage(query, live);
        case 'message': return live => rmsMessage(path[1], live);
        case 'producers': return producersPage;
        case 'audit': return live => auditPage(query, live);
        default: return async () => render(() => true, h('p', {}, 'No such page.'));
    }
}

let pendingNotice = null; // what an action that moved to another page has to say there

window.addEventListener('hashchange', () => { notice(pendingNotice); pendingNotice = null; route(); });
route();
