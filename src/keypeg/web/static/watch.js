// Watch the computer play (templates/watch.html): the page holds the whole game; this shows it a step at a
// time at the viewer's speed, with Play/Pause, Step, Step back and The whole game. Without it the page
// shows the whole game (or ?step=N with links). Whoever asked for less motion starts on the whole game,
// nothing moving until they press Play.
import { announce } from "./announce.js";

function reducedMotion() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function said(step) {
  const after = Number(step.dataset.after).toLocaleString("en");
  const reason = step.querySelector("[data-reason]");
  return `Guess ${step.dataset.step}: ${step.dataset.guess}, ${step.dataset.said}. `
    + `${after} ${after === "1" ? "code" : "codes"} left. ${reason ? reason.textContent : ""}`;
}

function watch(section) {
  if (section.dataset.watching) return;
  section.dataset.watching = "yes";
  const steps = Array.from(section.querySelectorAll("[data-step]"));
  const end = section.querySelector("[data-watch-end]");
  const controls = section.querySelector("[data-watch-controls]");
  const play = controls.querySelector("[data-play]");
  const back = controls.querySelector("[data-step-back]");
  const on = controls.querySelector("[data-step-on]");
  const all = controls.querySelector("[data-show-all]");
  const speed = controls.querySelector("[data-speed]");
  const speedShown = controls.querySelector("[data-speed-shown]");
  const where = controls.querySelector("[data-where]");
  const links = section.querySelector("[data-no-js-steps]");
  const given = section.dataset.start;
  const calm = reducedMotion();
  let shown = given !== "" ? Number(given) : calm ? steps.length : 0;
  let timer = null;

  function seconds() { return Number(speed.value) || 1; }

  function keepAddress() {
    const url = new URL(window.location.href);
    if (shown >= steps.length && !timer) url.searchParams.delete("step");
    else url.searchParams.set("step", String(shown));
    window.history.replaceState(window.history.state, "", url);
  }

  function render(arrived) {
    steps.forEach((step, k) => { // kept in place, unseen, until played (watch.css): showing one moves nothing
      step.hidden = false;
      step.classList.toggle("unplayed", k >= shown);
      step.setAttribute("aria-hidden", k >= shown ? "true" : "false");
      step.classList.toggle("latest", k === shown - 1);
      step.classList.toggle("arrive", arrived && k === shown - 1);
    });
    end.hidden = false;
    end.classList.toggle("unplayed", shown < steps.length);
    where.textContent = `Step ${shown} of ${steps.length}`;
    back.disabled = shown === 0;
    on.disabled = shown >= steps.length;
    all.disabled = shown >= steps.length;
    if (arrived && shown > 0) {
      const last = steps[shown - 1];
      announce(shown >= steps.length ? `${said(last)} ${end.textContent.trim()}` : said(last));
      if (last.scrollIntoView && section.isConnected) last.scrollIntoView({ block: "nearest", behavior: calm ? "auto" : "smooth" });
    }
  }

  function pause() {
    window.clearTimeout(timer);
    timer = null;
    play.textContent = "Play";
    play.setAttribute("aria-pressed", "false");
    keepAddress();
  }

  function tick() {
    if (!section.isConnected) { window.clearTimeout(timer); timer = null; return; } // the page was left
    if (shown < steps.length) { shown += 1; render(true); }
    if (shown >= steps.length) { pause(); return; }
    timer = window.setTimeout(tick, seconds() * 1000);
  }

  play.addEventListener("click", () => {
    if (timer) { pause(); return; }
    if (shown >= steps.length) { shown = 0; render(false); }
    play.textContent = "Pause";
    play.setAttribute("aria-pressed", "true");
    timer = window.setTimeout(tick, 0);
  });
  on.addEventListener("click", () => { pause(); if (shown < steps.length) { shown += 1; render(true); } keepAddress(); });
  back.addEventListener("click", () => { pause(); if (shown > 0) { shown -= 1; render(false); } keepAddress(); });
  all.addEventListener("click", () => { pause(); shown = steps.length; render(false); keepAddress(); });
  speed.addEventListener("input", () => { speedShown.textContent = `${seconds()} s`; });

  if (links) links.hidden = true;
  controls.hidden = false;
  render(false);
  if (given === "" && !calm) play.click(); // a new game plays at once, unless less motion was asked for
}

export function setUp(root) {
  root.querySelectorAll("[data-watch]").forEach(watch);
}
