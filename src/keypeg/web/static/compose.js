// A guess built by clicking pegs (or typing), and a peg taken back before it is sent; and, when you let
// this browser keep your code (it never leaves the browser), your score filled in from it.
import { announce } from "./announce.js";
import { score } from "./score.js";

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
    const [black, white] = score(secret, guess);
    const b = root.querySelector("input[name=black]"), w = root.querySelector("input[name=white]");
    if (b && w) { b.value = black; w.value = white; }
  };
  input.value = window.sessionStorage.getItem("keypeg-code-" + game) || "";
  input.addEventListener("input", fill);
  fill();
}

export function setUp(root) {
  setUpComposer(root);
  setUpKeeper(root);
}
