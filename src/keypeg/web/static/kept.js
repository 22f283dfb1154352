// What this browser keeps for keypeg (localStorage, or sessionStorage for one tab's session): a browser
// that refuses storage (blocked site data, some private windows) throws, and then nothing is kept and
// the page goes on as if nothing had been.
function area(session) {
  try {
    return session ? window.sessionStorage : window.localStorage;
  } catch (refused) {
    return null;
  }
}

// The value kept under ``key``, or null.
export function read(key, session = false) {
  try {
    const kept = area(session);
    return kept ? kept.getItem(key) : null;
  } catch (refused) {
    return null;
  }
}

// Keep ``value`` under ``key``; an empty or null value forgets it.
export function keep(key, value, session = false) {
  try {
    const kept = area(session);
    if (!kept) return;
    if (value) kept.setItem(key, value);
    else kept.removeItem(key);
  } catch (refused) {
    // not kept: it holds on this page only
  }
}
