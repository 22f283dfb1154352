// What a screen reader says: the page's one polite live region.
export function announce(text) {
  const region = document.getElementById("announce");
  if (region) { region.textContent = ""; window.setTimeout(() => { region.textContent = text; }, 50); }
}
