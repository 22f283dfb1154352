// The header: its theme switch (as the system, light, dark, in turn; the choice is kept on this device,
// early.js applies it before the page is drawn) and its Menu, closed by Escape or a click elsewhere.
import { announce } from "./announce.js";
import { keep, read } from "./kept.js";

const KEY = "keypeg-theme";
const CHOICES = ["system", "light", "dark"];
const NAMES = { system: "as the system", light: "light", dark: "dark" };
const BARS = { light: "#20232a", dark: "#0d0f12" }; // the header's colour, for the phone's own bar

function saved() {
  const chosen = read(KEY);
  return CHOICES.includes(chosen) ? chosen : "system";
}


function apply(choice) {
  const html = document.documentElement;
  if (choice === "system") html.removeAttribute("data-theme");
  else html.setAttribute("data-theme", choice);
  document.querySelectorAll("meta[name='theme-color']").forEach((meta) => {
    const own = (meta.getAttribute("media") || "").includes("dark") ? "dark" : "light";
    meta.setAttribute("content", BARS[choice === "system" ? own : choice]);
  });
}

function show(button, choice) {
  const next = CHOICES[(CHOICES.indexOf(choice) + 1) % CHOICES.length];
  button.setAttribute("data-choice", choice);
  button.title = `Theme: ${NAMES[choice]} (press for ${NAMES[next]})`;
  const name = button.querySelector("[data-theme-name]");
  if (name) name.textContent = `Theme: ${NAMES[choice]}`;
}

function setUpMenu() {
  const menu = document.querySelector("header details.menu");
  if (!menu) return;
  document.addEventListener("click", (event) => {
    if (menu.open && !menu.contains(event.target)) menu.open = false;
  });
  menu.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && menu.open) {
      menu.open = false;
      menu.querySelector("summary").focus();
    }
  });
}

export function setUp(root) {
  if (root !== document) return; // the header stays when a page's <main> is swapped
  setUpMenu();
  const button = document.querySelector("button[data-theme-switch]");
  if (!button) return;
  let choice = saved();
  apply(choice);
  show(button, choice);
  button.addEventListener("click", () => {
    choice = CHOICES[(CHOICES.indexOf(choice) + 1) % CHOICES.length];
    keep(KEY, choice === "system" ? null : choice);
    apply(choice);
    show(button, choice);
    announce(`Theme: ${NAMES[choice]}`);
  });
}
