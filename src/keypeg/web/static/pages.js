// Pages shown without a reload: a form marked data-live is sent in the background and the page's <main>
// is replaced by the answer's. Every module sets up what it owns on a new <main> when told
// "keypeg:page" (main.js listens), so a replaced page works as a loaded one.
import { announce } from "./announce.js";
import { keep, read } from "./kept.js";

export const PAGE_EVENT = "keypeg:page";

// Show the <main> of a fetched page in place of this one; the new main, or null when it had none.
// ``keep(main)`` may carry what the player had under way into the new main before it is set up.
export function showPage(html, keep = null) {
  const fresh = new DOMParser().parseFromString(html, "text/html");
  const main = fresh.querySelector("main");
  if (!main) return null;
  if (keep) keep(main);
  document.querySelector("main").replaceWith(main);
  document.title = fresh.title;
  document.dispatchEvent(new CustomEvent(PAGE_EVENT, { detail: main }));
  const said = main.querySelector("[data-announce]");
  if (said) announce(said.getAttribute("data-announce"));
  return main;
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
  const main = showPage(await answer.text());
  if (!main) { form.submit(); return; }
  if (answer.redirected && answer.url !== window.location.href) {
    window.history.pushState({}, "", answer.url);
    shown = pageOf(window.location);
  }
  const focus = main.querySelector("[autofocus]") || main.querySelector("h1");
  if (focus) focus.focus();
}

// The page a live stream's state brings (``state.page``), else this page fetched again: null when it
// could not be had (the store down again: the caller opens its stream again later).
export async function pageFor(state) {
  if (state && typeof state.page === "string") return state.page;
  try {
    const answer = await fetch(window.location.href, { credentials: "same-origin" });
    return answer.ok ? await answer.text() : null;
  } catch (error) {
    return null;
  }
}

// The first state of a live stream (re)opened, made for another viewer than the page shown (``marker``'s
// data-you): the session changed meanwhile (logged out, or logged in, in another tab; the server ends a
// stream whose session did), so the whole page is loaded again for the new one (its header, its forms'
// tokens). Only a stream's first state: a later one may come while a login in another tab is still being
// answered, and a reload then could carry the old cookie. True when it reloads. A reload for the same viewer is not made
// twice within 10 s, so a page that keeps disagreeing with its stream is never reloaded over and over
// (a reload for another viewer is: the session may change again while the first one loads).
const RELOADED_KEY = "keypeg-viewer-reload";
export function reloadForNewViewer(state, marker) {
  if (!state || state.you === undefined || !marker || !marker.hasAttribute("data-you")) return false;
  const wanted = state.you || "";
  if (wanted === marker.getAttribute("data-you")) return false;
  const last = read(RELOADED_KEY, true) || "";
  const space = last.indexOf(" "); // the time, a space, the viewer reloaded for (a name may hold spaces)
  if (space > 0 && last.slice(space + 1) === wanted && Date.now() - Number(last.slice(0, space)) < 10000) return false;
  keep(RELOADED_KEY, `${Date.now()} ${wanted}`, true);
  window.location.reload();
  return true;
}

export function setUp(root) {
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
}

// Back and Forward over the pages a live form went to: load the page now at that address. A link within
// the page (the skip link's #main) changes only the fragment, and must not reload it.
function pageOf(place) { return place.pathname + place.search; }
let shown = pageOf(window.location);
window.addEventListener("popstate", () => { if (pageOf(window.location) !== shown) window.location.reload(); });
