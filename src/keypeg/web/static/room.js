// A room's page: what makes it live (its stream, its forms sent in the background, the clock, the Copy
// buttons) is in room-live.js, fetched only once a room's page is shown: every other page saves its bytes.
// Until it is there (a few milliseconds), the page's forms work as plain forms.
let live = null;

export function setUp(root) {
  if (!live && !root.querySelector("[data-room-events], form[data-room-form]")) return;
  live = live || import("./room-live.js");
  live.then((module) => module.setUp(root)).catch((error) => console.error(error));
}
