// A clock counted down on the page from the seconds the server sent, drawn as m:ss (h:mm:ss past an hour)
// four times a second; it stops itself at 0:00 (the interval's id is returned, for the page to stop it first). The server is the judge: its stream brings what happens
// when the time runs out.
export function countDown(shown, seconds) {
  const end = performance.now() + seconds * 1000;
  const two = (n) => String(n).padStart(2, "0");
  let ticking = null;
  const draw = () => {
    const left = Math.max(0, Math.ceil((end - performance.now()) / 1000));
    const hours = Math.floor(left / 3600), minutes = Math.floor(left / 60) % 60, rest = left % 60;
    shown.textContent = hours ? `${hours}:${two(minutes)}:${two(rest)}` : `${minutes}:${two(rest)}`;
    if (!left && ticking) { window.clearInterval(ticking); ticking = null; }
  };
  draw();
  ticking = window.setInterval(draw, 250);
  return ticking;
}
