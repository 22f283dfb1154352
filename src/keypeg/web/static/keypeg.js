// keypeg's pages work as plain HTML forms; this script only makes them quicker:
// - forms marked data-live are sent in the background and the page's <main> is replaced by the answer's;
// - a guess can be built by clicking pegs (or typing), and a peg taken back before it is sent;
// - when you let this browser keep your code (it never leaves the browser), your score is filled in;
// - a live match's clock counts down, and you can ask to be notified when it is your turn.
"use strict";

function announce(text) {
  const region = document.getElementById("announce");
  if (region) { region.textContent = ""; window.setTimeout(() => { region.textContent = text; }, 50); }
}

async function sendLive(form, submitter) {
  if (form.dataset.sending) return; // a double click sends the form once
  form.dataset.sending = "yes";
  form.querySelectorAll("button").forEach((b) => { b.disabled = true; });
  const data = new FormData(form);
  if (submitter && submitter.name) data.append(submitter.name, submitter.value);
  let answer;
  try {
    answer = await fetch(form.action, { method: "POST", body: data, credentials: "same-origin" });
  } catch (error) {
    form.submit();
    return;
  }
  const html = await answer.text();
  const fresh = new DOMParser().parseFromString(html, "text/html");
  const main = fresh.querySelector("main");
  if (!main) { form.submit(); return; }
  document.querySelector("main").replaceWith(main);
  if (answer.redirected && answer.url !== window.location.href) {
    window.history.pushState({}, "", answer.url);
    shown = pageOf(window.location);
  }
  document.title = fresh.title;
  setUp(main);
  const said = main.querySelector("[data-announce]");
  if (said) announce(said.getAttribute("data-announce"));
  const focus = main.querySelector("[autofocus]") || main.querySelector("h1");
  if (focus) focus.focus();
}

function setUpComposer(root) {
  const input = root.querySelector("input[data-code]");
  const shown = root.querySelector("[data-composed]");
  if (!input || !shown) return;
  const pegs = Number(input.getAttribute("data-pegs"));
  const styles = {};
  root.querySelectorAll("button[data-symbol]").forEach((b) => { styles[b.getAttribute("data-symbol")] = b.className; });
  const draw = () => {
    shown.textContent = "";
    for (const symbol of input.value.toUpperCase().replace(/\s/g, "")) {
      const peg = document.createElement("span");
      peg.className = styles[symbol] || "peg";
      peg.textContent = symbol;
      shown.appendChild(peg);
    }
  };
  root.querySelectorAll("[data-palette]").forEach((el) => { el.hidden = false; });
  root.querySelectorAll("button[data-symbol]").forEach((button) => {
    button.addEventListener("click", () => {
      if (input.value.replace(/\s/g, "").length < pegs) input.value += button.getAttribute("data-symbol");
      draw();
      announce(button.getAttribute("aria-label"));
    });
  });
  const back = root.querySelector("button[data-back]");
  if (back) back.addEventListener("click", () => { input.value = input.value.replace(/\s/g, "").slice(0, -1); draw(); });
  const clear = root.querySelector("button[data-clear]");
  if (clear) clear.addEventListener("click", () => { input.value = ""; draw(); });
  input.addEventListener("input", draw);
  draw();
}

// Score a guess against a code the player let this browser keep: black and white key pegs.
function scoreOf(secret, guess) {
  let black = 0;
  const left = {}, wanted = {};
  for (let k = 0; k < guess.length; k++) {
    if (secret[k] === guess[k]) black++;
    else { left[secret[k]] = (left[secret[k]] || 0) + 1; wanted[guess[k]] = (wanted[guess[k]] || 0) + 1; }
  }
  let white = 0;
  for (const symbol in wanted) white += Math.min(wanted[symbol], left[symbol] || 0);
  return [black, white];
}

function setUpKeeper(root) {
  const keeper = root.querySelector("[data-keep-code]");
  if (!keeper) return;
  keeper.hidden = false;
  const game = keeper.getAttribute("data-keep-code");
  const input = keeper.querySelector("input");
  const guess = keeper.getAttribute("data-guess");
  const fill = () => {
    const secret = input.value.toUpperCase().replace(/\s/g, "");
    if (secret) window.sessionStorage.setItem("keypeg-code-" + game, secret);
    else window.sessionStorage.removeItem("keypeg-code-" + game);
    if (!secret || !guess || secret.length !== guess.length) return;
    const [black, white] = scoreOf(secret, guess);
    const b = root.querySelector("input[name=black]"), w = root.querySelector("input[name=white]");
    if (b && w) { b.value = black; w.value = white; }
  };
  input.value = window.sessionStorage.getItem("keypeg-code-" + game) || "";
  input.addEventListener("input", fill);
  fill();
}

// A live match: follow its events; when it changes, show the page again (what was typed is kept).
// The server sends a state or an "alive" event every 5 s; a stream that ended (a restart, a store down
// for a while: the browser gives up on an answer that is not 200) or stayed silent longer than two
// keep-alives is opened again, after 1, 2, 4 ... at most 30 s, and its first state catches the page up.
const KEEPALIVE_MS = 5000;
let following = null;
function follow(root) {
  const marker = root.querySelector("[data-live-events]");
  if (!marker) return;
  const address = marker.getAttribute("data-live-events");
  if (following && following.address === address) return;
  if (following) following.stop();
  following = stream(address);
}

function stream(address) {
  const run = { address, source: null, heard: 0, delay: 1000, again: null, stopped: false };
  const reopen = () => {
    if (run.source) run.source.close();
    run.source = null;
    if (run.stopped || run.again) return;
    run.again = window.setTimeout(() => { run.again = null; open(); }, run.delay);
    run.delay = Math.min(run.delay * 2, 30000);
  };
  // Heard from: the watchdog waits again. The backoff starts afresh only once the stream has served
  // (a keep-alive, or a state whose page could be had): a page that keeps failing keeps backing off.
  const heard = () => { run.heard = Date.now(); };
  const served = () => { run.delay = 1000; };
  const open = () => {
    const source = new EventSource(address);
    run.source = source;
    run.heard = Date.now();
    source.addEventListener("state", async (event) => { heard(); if (await showState(event)) served(); });
    source.addEventListener("alive", () => { heard(); served(); });
    source.addEventListener("error", () => { if (source.readyState === EventSource.CLOSED) reopen(); });
  };
  const watchdog = window.setInterval(() => {
    if (run.source && Date.now() - run.heard > 2 * KEEPALIVE_MS + 1000) reopen();
  }, 1000);
  run.reopen = reopen;
  run.stop = () => {
    run.stopped = true;
    window.clearInterval(watchdog);
    if (run.again) window.clearTimeout(run.again);
    if (run.source) run.source.close();
  };
  open();
  return run;
}

// Show the page of the state an event stream sent; false when the page could not be had.
async function showState(event) {
  const shown = document.querySelector("[data-live-events]");
  const state = JSON.parse(event.data);
  if (shown && String(state.version) === shown.getAttribute("data-version")) return true;
  let answer, html;
  try {
    answer = await fetch(window.location.href, { credentials: "same-origin" });
    html = await answer.text();
  } catch (error) {
    answer = null;
  }
  // The page could not be had (the store down again): the stream is opened again later, and its first
  // state brings the page then.
  if (!answer || !answer.ok) { if (following) following.reopen(); return false; }
  const fresh = new DOMParser().parseFromString(html, "text/html");
  const main = fresh.querySelector("main");
  if (!main) return true;
  // Fetches overtake each other: a page older than the one shown (a late answer) is left unshown.
  const now = document.querySelector("[data-live-events]");
  const got = main.querySelector("[data-live-events]");
  if (now && got && Number(got.getAttribute("data-version")) < Number(now.getAttribute("data-version"))) return true;
  const typed = document.querySelector("input[data-code]");
  const kept = typed ? typed.value : "";
  const mine = (marker) => Boolean(marker && marker.hasAttribute("data-your-turn"));
  const turnCame = !mine(now) && mine(got);
  document.querySelector("main").replaceWith(main);
  document.title = fresh.title;
  if (turnCame) tellTurn(fresh.title);
  const input = main.querySelector("input[data-code]");
  if (input && kept) input.value = kept;
  setUp(main);
  const said = main.querySelector("[data-announce]");
  if (said) announce(said.getAttribute("data-announce"));
  if (input) input.focus();
  return true;
}

// A live match's clock: the time left for the move awaited, counted down from the seconds the server
// sent with the page. The server is the judge: when the time runs out, its stream brings the page that
// says who forfeited.
let ticking = null;
function setUpClock(root) {
  if (ticking) window.clearInterval(ticking);
  ticking = null;
  const shown = root.querySelector("[data-seconds-left]");
  if (!shown) return;
  const end = performance.now() + Number(shown.getAttribute("data-seconds-left")) * 1000;
  const two = (n) => String(n).padStart(2, "0");
  const draw = () => {
    const left = Math.max(0, Math.ceil((end - performance.now()) / 1000));
    const hours = Math.floor(left / 3600), minutes = Math.floor(left / 60) % 60, seconds = left % 60;
    shown.textContent = hours ? `${hours}:${two(minutes)}:${two(seconds)}` : `${minutes}:${two(seconds)}`;
    if (!left && ticking) { window.clearInterval(ticking); ticking = null; }
  };
  draw();
  ticking = window.setInterval(draw, 250);
}

// Told that it is your turn: the tab's title says so, and, once you asked for it (the button, then the
// browser's permission), a notification while you look elsewhere. Nothing is asked without the click.
const NOTIFY_KEY = "keypeg-notify";
function setUpNotify(root) {
  const button = root.querySelector("button[data-notify]");
  if (!button || !("Notification" in window) || Notification.permission === "denied") return;
  if (Notification.permission === "granted" && window.localStorage.getItem(NOTIFY_KEY)) return;
  button.hidden = false;
  button.addEventListener("click", async () => {
    if (await Notification.requestPermission() !== "granted") { button.hidden = true; return; }
    window.localStorage.setItem(NOTIFY_KEY, "yes");
    button.hidden = true;
    announce("You will be notified when it is your turn.");
  });
}

function tellTurn(title) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  if (!window.localStorage.getItem(NOTIFY_KEY) || !document.hidden) return;
  new Notification(title, { body: "It is your turn in your keypeg match.", tag: "keypeg-turn" });
}

function setUp(root) {
  root.querySelectorAll("form[data-live]").forEach((form) => {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      sendLive(form, event.submitter);
    });
  });
  root.querySelectorAll("form[data-confirm]").forEach((form) => {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.getAttribute("data-confirm"))) { event.preventDefault(); event.stopImmediatePropagation(); }
    }, { capture: true });
  });
  setUpComposer(root);
  setUpKeeper(root);
  setUpClock(root);
  setUpNotify(root);
  follow(root);
}

// Back and Forward over the pages a live form went to: load the page now at that address. A link within
// the page (the skip link's #main) changes only the fragment, and must not reload it.
function pageOf(place) { return place.pathname + place.search; }
let shown = pageOf(window.location);
window.addEventListener("popstate", () => { if (pageOf(window.location) !== shown) window.location.reload(); });
document.addEventListener("DOMContentLoaded", () => setUp(document));
