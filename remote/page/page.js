// segwi's approval page: it lists what waits for the person and the runs, as segwi streams
// them (server-sent events at /events), and posts the person's answers to /answer with the
// session's anti-forgery token. Every text comes from segwi already made safe to show; it
// is only ever put in place as text, never as markup.
"use strict";

const token = document.querySelector('meta[name="segwi-token"]').content;
const waiting = new Map(); // request id -> {data, el}
const runs = new Map(); // run id -> run
let clockOffset = 0; // segwi's clock minus this device's, in ms

const $ = (id) => document.getElementById(id);

function setStatus(text, trouble) {
  const el = $("status");
  el.textContent = text;
  el.classList.toggle("trouble", !!trouble);
}

// timeLeft says how long a request still waits, by segwi's clock.
function timeLeft(deadline) {
  const ms = Date.parse(deadline) - (Date.now() + clockOffset);
  if (ms <= 0) return "Time is up: segwi denies it now";
  const s = Math.ceil(ms / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  if (h > 0) return `${h}h ${m}m left`;
  if (m > 0) return `${m}m ${r}s left`;
  return `${r}s left`;
}

function fill(el, cls, text) {
  const part = el.querySelector("." + cls);
  part.textContent = text || "";
  part.hidden = !text;
}

function card(a) {
  const el = $("approval-card").content.firstElementChild.cloneNode(true);
  el.dataset.request = a.request;
  fill(el, "kind", a.kind);
  fill(el, "name", a.name);
  fill(el, "task", a.prompt);
  fill(el, "tool", `wants to use ${a.tool}`);
  fill(el, "caption", a.caption);
  fill(el, "file", a.file);
  fill(el, "description", a.description);
  fill(el, "left", a.left ? `${a.left} more bytes of this input are not shown: deny it if you cannot judge it` : "");
  const pre = el.querySelector(".text");
  if (a.diff && a.diff.length) {
    for (const line of a.diff) {
      const span = document.createElement("span");
      span.className = line.op === "+" ? "add" : "del";
      span.textContent = `${line.op} ${line.text}`;
      pre.appendChild(span);
    }
  } else {
    pre.textContent = a.text || "";
    pre.hidden = !a.text;
  }
  fill(el, "time-left", timeLeft(a.deadline));

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
      // segwi may have told the page already that the request is answered, and by whom.
      if (waiting.has(request)) outcome.textContent = "Sent: segwi has your answer.";
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
  const old = waiting.get(a.request);
  const el = card(a);
  if (old) old.el.replaceWith(el); else $("approvals").appendChild(el);
  waiting.set(a.request, { data: a, el });
  $("no-approvals").hidden = waiting.size > 0;
}

function removeApproval(request, text) {
  const w = waiting.get(request);
  if (!w) return;
  waiting.delete(request);
  const outcome = w.el.querySelector(".outcome");
  outcome.classList.remove("trouble");
  outcome.textContent = text;
  for (const b of w.el.querySelectorAll("button")) b.disabled = true;
  w.el.classList.add("gone");
  setTimeout(() => { w.el.remove(); $("no-approvals").hidden = waiting.size > 0; }, 4000);
}

function renderRuns() {
  const list = $("runs");
  list.replaceChildren();
  const all = [...runs.values()].sort((a, b) => Date.parse(b.created) - Date.parse(a.created)).slice(0, 50);
  for (const r of all) {
    const li = document.createElement("li");
    li.dataset.run = r.id;
    for (const [cls, text] of [["kind", r.kind], ["name", r.name], ["state " + r.state, r.state + (r.reason ? `: ${r.reason}` : "")], ["prompt", r.prompt]]) {
      if (!text) continue;
      const span = document.createElement("span");
      span.className = cls;
      span.textContent = text;
      li.appendChild(span);
    }
    list.appendChild(li);
  }
  $("no-runs").hidden = runs.size > 0;
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
    for (const id of [...waiting.keys()]) if (!now.has(id)) removeApproval(id, "No longer waits.");
    for (const a of list) showApproval(a);
    $("no-approvals").hidden = waiting.size > 0;
  });
  on("approval", showApproval);
  on("gone", (g) => removeApproval(g.request, g.text));
  es.onerror = () => setStatus("Reconnecting to segwi…", true);
}

setInterval(() => {
  for (const { data, el } of waiting.values()) el.querySelector(".time-left").textContent = timeLeft(data.deadline);
}, 1000);

connect();
