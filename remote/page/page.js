// segwi's approval page: it lists what waits for the person and the runs, as segwi streams
// them (server-sent events at /events), and posts the person's answers to /answer, and the
// raise of a run's budget where it waits at it to /raise, with the session's anti-forgery
// token. Every text comes from segwi already made safe to show; it
// is only ever put in place as text, never as markup.
"use strict";

const token = document.querySelector('meta[name="segwi-token"]').content;
const waiting = new Map(); // request id -> {data, el}: what waits for an answer
const settled = new Map(); // request id -> el: cards answered or gone, shown a little longer
const runs = new Map(); // run id -> run
const raises = new Map(); // run id -> the form raising its budget while it waits at it, kept so that what is typed stays
let clockOffset = 0; // segwi's clock minus this device's, in ms

const $ = (id) => document.getElementById(id);

function setStatus(text, trouble) {
  const el = $("status");
  el.textContent = text;
  el.classList.toggle("trouble", !!trouble);
}

// timeLeft says how long a request still waits, by segwi's clock, and that its run ends
// then when its deadline is the run's end (runs.maxDuration).
function timeLeft(deadline, runEnds) {
  const ms = Date.parse(deadline) - (Date.now() + clockOffset);
  if (ms <= 0) return runEnds ? "Time is up: the run ends and segwi denies it now" : "Time is up: segwi denies it now";
  const s = Math.ceil(ms / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const left = h > 0 ? `${h}h ${m}m left` : m > 0 ? `${m}m ${r}s left` : `${r}s left`;
  return runEnds ? `${left}, then the run ends (runs.maxDuration)` : left;
}

function fill(el, cls, text) {
  const part = el.querySelector("." + cls);
  part.textContent = text || "";
  part.hidden = !text;
}

// The mark of a change's line, as the terminal and the popup show it.
const marks = { "-": "- ", "+": "+ ", " ": "  " };
const lineClass = { "-": "del", "+": "add", " ": "kept", "@": "head" };

function card(a) {
  const el = $("approval-card").content.firstElementChild.cloneNode(true);
  el.dataset.request = a.request;
  fill(el, "kind", a.kind);
  fill(el, "name", a.name);
  fill(el, "task", a.prompt);
  fill(el, "tool", `wants to use ${a.tool}`);
  fill(el, "reason-hint", a.reasonHint);
  fill(el, "secret", a.secret ? `⚠ ${a.secret}` : "");
  fill(el, "unread", a.unread);
  fill(el, "note", a.note);
  fill(el, "runs-how", a.runs ? `Runs ${a.runs}` : "");
  fill(el, "caption", `${a.caption}:`);
  fill(el, "description", a.description ? `Why: ${a.description}` : "");
  fill(el, "cut", a.cut ? `… ${a.cut}` : "");
  fill(el, "sha", `Input SHA-256: ${a.sha256}`);
  const pre = el.querySelector(".text");
  if (a.shape === "change") {
    for (const line of a.diff || []) {
      const span = document.createElement("span");
      span.className = lineClass[line.op] || "kept";
      span.textContent = line.op === "@" ? `@@ ${line.text} @@` : `${marks[line.op] || ""}${line.text}`;
      pre.appendChild(span);
    }
    if (!a.diff || !a.diff.length) pre.textContent = "(no text)";
  } else {
    pre.textContent = a.text || "";
  }
  const json = el.querySelector(".as-json");
  if (a.shape === "json") {
    json.hidden = true; // the main text is the JSON
  } else {
    el.querySelector(".json").textContent = a.json;
    fill(el, "json-cut", a.jsonCut ? `… ${a.jsonCut}` : "");
  }
  fill(el, "time-left", timeLeft(a.deadline, a.runEnds));

  const form = el.querySelector(".deny-form");
  const actions = el.querySelector(".actions");
  const confirm = el.querySelector(".confirm-deny");
  let decision = "deny";
  const openDeny = (d, label) => {
    decision = d;
    confirm.textContent = label;
    actions.hidden = true;
    form.hidden = false;
    el.querySelector(".reason").focus();
  };
  el.querySelector(".allow").addEventListener("click", () => answer(el, a.request, "allow", ""));
  el.querySelector(".deny").addEventListener("click", () => openDeny("deny", "Deny"));
  el.querySelector(".deny-stop").addEventListener("click", () => openDeny("deny-and-stop", "Deny and stop the run"));
  el.querySelector(".cancel").addEventListener("click", () => { form.hidden = true; actions.hidden = false; });
  confirm.addEventListener("click", () => answer(el, a.request, decision, el.querySelector(".reason").value));
  return el;
}

// What the page says of an answer it sent, once segwi took it.
const sentText = { "allow": "Allowed by you, here", "deny": "Denied by you, here", "deny-and-stop": "Denied by you, here; the run stops" };

async function answer(el, request, decision, reason) {
  const outcome = el.querySelector(".outcome");
  for (const b of el.querySelectorAll("button")) b.disabled = true;
  outcome.classList.remove("trouble");
  outcome.textContent = "Sending…";
  try {
    const res = await fetch("/answer", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Segwi-Token": token },
      body: JSON.stringify({ request, decision, reason }),
    });
    if (res.ok) {
      // Answered: it no longer waits, here and everywhere the page shows it, at once.
      // segwi tells the page too, and who answered; when that came first, it stands.
      if (waiting.has(request)) settle(request, sentText[decision]);
      return;
    }
    outcome.textContent = (await res.text()).trim();
  } catch (e) {
    outcome.textContent = `Not sent: ${e.message}. Try again.`;
  }
  outcome.classList.add("trouble");
  for (const b of el.querySelectorAll("button")) b.disabled = false;
}

function showApproval(a) {
  if (settled.has(a.request)) return; // answered here already; segwi's list may lag behind
  const old = waiting.get(a.request);
  const el = card(a);
  if (old) old.el.replaceWith(el); else $("approvals").appendChild(el);
  waiting.set(a.request, { data: a, el });
  showWaiting();
}

// settle marks a request answered (or gone) with text saying how, wherever the page shows
// it: its card says so and takes no answer, and it leaves the counts and its run's row.
// The card stays a few seconds, so that the person reads what happened.
function settle(request, text) {
  const w = waiting.get(request);
  const el = w ? w.el : settled.get(request);
  if (!el) return;
  const outcome = el.querySelector(".outcome");
  outcome.classList.remove("trouble");
  outcome.textContent = text;
  if (!w) return; // settled before: only the words change, to segwi's
  waiting.delete(request);
  settled.set(request, el);
  for (const b of el.querySelectorAll("button")) b.disabled = true;
  el.querySelector(".deny-form").hidden = true;
  el.querySelector(".actions").hidden = true;
  el.classList.add("answered", "gone");
  setTimeout(() => { el.remove(); settled.delete(request); showWaiting(); }, 4000);
  showWaiting();
}

// showWaiting brings up to date what the page says of the requests that wait: the count
// in the heading and the title, the runs that have some, the word when none does.
function showWaiting() {
  $("no-approvals").hidden = waiting.size > 0 || settled.size > 0;
  $("waiting-count").textContent = waiting.size ? `(${waiting.size})` : "";
  document.title = waiting.size ? `(${waiting.size}) segwi · approvals` : "segwi · approvals";
  renderRuns();
}

function renderRuns() {
  const list = $("runs");
  list.replaceChildren();
  const waits = new Map(); // run id -> requests of it that wait
  for (const { data } of waiting.values()) waits.set(data.run, (waits.get(data.run) || 0) + 1);
  const all = [...runs.values()].sort((a, b) => Date.parse(b.created) - Date.parse(a.created)).slice(0, 50);
  for (const r of all) {
    const li = document.createElement("li");
    li.dataset.run = r.id;
    const n = waits.get(r.id) || 0;
    const waitsText = n ? `⚠ ${n} ${n === 1 ? "approval waits" : "approvals wait"} for you` : "";
    for (const [cls, text] of [["kind", r.kind], ["name", r.name], ["state " + r.state, r.state + (r.reason ? `: ${r.reason}` : "")], ["waits", waitsText], ["prompt", r.prompt]]) {
      if (!text) continue;
      const span = document.createElement("span");
      span.className = cls;
      span.textContent = text;
      li.appendChild(span);
    }
    if (r.atBudget) li.appendChild(raiseForm(r)); else raises.delete(r.id);
    list.appendChild(li);
  }
  $("no-runs").hidden = runs.size > 0;
}

// raiseForm is the form that raises the budget of run r, which waits at it: each bound the
// run has, to raise by itself again to start with (as the run window offers), and Raise and
// go on. One form a run, kept while it waits, so that a list redrawn keeps what is typed.
function raiseForm(r) {
  let f = raises.get(r.id);
  if (f) return f;
  f = $("raise-form").content.firstElementChild.cloneNode(true);
  const b = r.budget || {};
  for (const [cls, v] of [["cost", b.cost], ["tokens", b.tokens], ["turns", b.turns]]) {
    const label = f.querySelector("label." + cls);
    label.hidden = !v;
    label.querySelector("input").value = v ? String(v) : "";
  }
  f.querySelector("button.raise").addEventListener("click", () => raise(f, r.id));
  raises.set(r.id, f);
  return f;
}

// raise posts the raise the form f holds for run, and says how it went.
async function raise(f, run) {
  const outcome = f.querySelector(".outcome");
  const button = f.querySelector("button.raise");
  const by = { run, cost: 0, tokens: 0, turns: 0 };
  for (const cls of ["cost", "tokens", "turns"]) {
    const label = f.querySelector("label." + cls);
    if (label.hidden) continue;
    const typed = label.querySelector("input").value.replace(/[\s,_$]/g, "");
    const v = typed === "" ? 0 : Number(typed);
    if (!Number.isFinite(v) || v < 0 || (cls !== "cost" && !Number.isInteger(v))) {
      outcome.textContent = `"${label.querySelector("input").value}" is not ${cls === "cost" ? "a sum of dollars like 2.00" : "a whole number"}.`;
      outcome.classList.add("trouble");
      return;
    }
    by[cls] = v;
  }
  button.disabled = true;
  outcome.classList.remove("trouble");
  outcome.textContent = "Sending…";
  try {
    const res = await fetch("/raise", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Segwi-Token": token },
      body: JSON.stringify(by),
    });
    if (res.ok) {
      outcome.textContent = "Raised by you, here: the run goes on";
      return;
    }
    outcome.textContent = (await res.text()).trim();
  } catch (e) {
    outcome.textContent = `Not sent: ${e.message}. Try again.`;
  }
  outcome.classList.add("trouble");
  button.disabled = false;
}

function connect() {
  const es = new EventSource("/events");
  const on = (name, fn) => es.addEventListener(name, (e) => fn(JSON.parse(e.data)));
  on("hello", (h) => {
    clockOffset = Date.parse(h.now) - Date.now();
    setStatus("Live: what waits shows here as it comes.");
  });
  on("runs", (list) => { runs.clear(); for (const r of list) runs.set(r.id, r); renderRuns(); });
  on("run", (r) => { runs.set(r.id, r); renderRuns(); });
  on("approvals", (list) => {
    const now = new Set(list.map((a) => a.request));
    for (const id of [...waiting.keys()]) if (!now.has(id)) settle(id, "No longer waits.");
    for (const a of list) showApproval(a);
    showWaiting();
  });
  on("approval", showApproval);
  on("gone", (g) => settle(g.request, g.text));
  es.onerror = () => setStatus("Reconnecting to segwi…", true);
}

setInterval(() => {
  for (const { data, el } of waiting.values()) el.querySelector(".time-left").textContent = timeLeft(data.deadline, data.runEnds);
}, 1000);

connect();
