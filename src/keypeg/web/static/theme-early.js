// Run in <head> before the first paint (a classic script, no module): the theme chosen on this device, if
// one was (theme.js saves it). Without a choice the style sheet follows the system's light or dark.
try {
  const chosen = window.localStorage.getItem("keypeg-theme");
  if (chosen === "light" || chosen === "dark") document.documentElement.setAttribute("data-theme", chosen);
} catch (refused) {
  // storage refused (a private window's settings): follow the system
}
