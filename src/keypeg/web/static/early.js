// Run in <head> before the first paint (a classic script, no module), on every page:
// - the theme chosen on this device, if one was (theme.js saves it); without a choice the style sheet
//   follows the system's light or dark;
// - the mark that the page's scripts run (class "js" on <html>), so the style sheets lay a page out at
//   once as its modules will show it (the board's tray, the Watch page's controls) and nothing drawn
//   moves when they start.
document.documentElement.classList.add("js");
try {
  const chosen = window.localStorage.getItem("keypeg-theme");
  if (chosen === "light" || chosen === "dark") document.documentElement.setAttribute("data-theme", chosen);
} catch (refused) {
  // storage refused (a private window's settings): follow the system
}
