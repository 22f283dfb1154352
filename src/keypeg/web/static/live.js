// A live match: follow its events; when it changes, show the page again (a guess under way is kept). The
// stream, opened with ?page=true, brings the page with each change (as the page's GET renders it); a state
// without it (the invitation, the match over) has the page fetched again.
// The server sends a state or an "alive" event every 5 s; a stream that ended (a restart, a store down
// for a while: the browser gives up on an answer that is not 200) or stayed silent longer than two
// keep-alives is opened again, after 1, 2, 4 ... at most 30 s, and its first state catches the page up.
import { announce } from "./announce.js";
import { countDown } from "./clock.js";
import { keep, read } from "./kept.js";
import { pageFor, reloadForNewViewer, showPage } from "./pages.js";

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
    const source = new EventSource(`${address}${address.includes("?") ? "&" : "?"}page=true`);
    run.source = source;
    run.heard = Date.now();
    let first = false; // the first state since the stream (re)connected: the session it was opened with
    source.addEventListener("open", () => { first = true; });
    source.addEventListener("state", async (event) => {
      heard();
      const opened = first;
      first = false;
      if (await showState(event, opened)) served();
    });
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
async function showState(event, opened = false) {
  const now = document.querySelector("[data-live-events]");
  const state = JSON.parse(event.data);
  if (opened && reloadForNewViewer(state, now)) return true;
  if (now && String(state.version) === now.getAttribute("data-version")) return true;
  const html = await pageFor(state); // brought by the stream, or fetched
  // The page could not be had (the store down again): the stream is opened again later, and its first
  // state brings the page then.
  if (html === null) { if (following) following.reopen(); return false; }
  // Fetches overtake each other: a page older than the one shown (a late answer) is left unshown.
  const shownNow = document.querySelector("[data-live-events]");
  const got = new DOMParser().parseFromString(html, "text/html").querySelector("main [data-live-events]");
  if (shownNow && got && Number(got.getAttribute("data-version")) < Number(shownNow.getAttribute("data-version"))) return true;
  const typed = document.querySelector("input[data-code]");
  const kept = typed ? typed.value : "";
  const mine = (marker) => Boolean(marker && marker.hasAttribute("data-your-turn"));
  const turnCame = !mine(shownNow) && mine(got);
  const main = showPage(html, (fresh) => {
    const input = fresh.querySelector("input[data-code]");
    if (input && kept) input.value = kept;
  });
  if (!main) return true;
  if (turnCame) tellTurn(document.title);
  const focus = main.querySelector("[autofocus]") || main.querySelector("h1");
  if (focus) focus.focus();
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
  ticking = countDown(shown, Number(shown.getAttribute("data-seconds-left")));
}

// Told that it is your turn: the tab's title says so, and, once you asked for it (the button, then the
// browser's permission), a notification while you look elsewhere. Nothing is asked without the click.
const NOTIFY_KEY = "keypeg-notify";
function setUpNotify(root) {
  const button = root.querySelector("button[data-notify]");
  if (!button || !("Notification" in window) || Notification.permission === "denied") return;
  if (Notification.permission === "granted" && read(NOTIFY_KEY)) return;
  button.hidden = false;
  button.addEventListener("click", async () => {
    if (await Notification.requestPermission() !== "granted") { button.hidden = true; return; }
    keep(NOTIFY_KEY, "yes");
    button.hidden = true;
    announce("You will be notified when it is your turn.");
  });
}

function tellTurn(title) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  if (!read(NOTIFY_KEY) || !document.hidden) return;
  new Notification(title, { body: "It is your turn in your keypeg match.", tag: "keypeg-turn" });
}

export function setUp(root) {
  setUpClock(root);
  setUpNotify(root);
  follow(root);
}
