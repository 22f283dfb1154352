// keypeg's pages work as plain HTML forms; these modules only make them quicker and nicer. Each exports
// setUp(root), run on the page as loaded and on every <main> shown in place of another (pages.js).
import { PAGE_EVENT, setUp as pages } from "./pages.js";
import { setUp as board } from "./board.js";
import { setUp as live } from "./live.js";
import { setUp as theme } from "./theme.js";
import { setUp as share } from "./share.js";
import { setUp as watch } from "./watch.js";
import { setUp as room } from "./room.js";

const parts = [pages, board, live, theme, share, watch, room];

// One part failing (a browser refusing what it uses) leaves the others working.
function setUpAll(root) {
  for (const part of parts) {
    try {
      part(root);
    } catch (error) {
      console.error(error);
    }
  }
}

document.addEventListener(PAGE_EVENT, (event) => setUpAll(event.detail));
setUpAll(document);
