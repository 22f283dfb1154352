// Run in <head> before the first paint (a classic script, no module), on the Watch page only: says the
// script is there, so the style sheet lays the page out as watch.js will show it (its controls in place,
// the steps not yet played kept but unseen) and nothing that was drawn moves when watch.js starts.
document.documentElement.classList.add("watch-js");
