// Which game the site's root address opens: the one last played in this browser.
//
// A classic script (not a module), loaded in the <head> of both game pages so that it runs
// before the page is drawn. The checkers page (/checkers) and the backgammon page (/) each
// keep their game in localStorage ("site.game"); the root address, opened bare (no query, no
// hash: an invite link or a shared game opens backgammon whatever the setting), goes on to
// /checkers when the last game was checkers. The checkers page's Backgammon links open
// /?game=backgammon, which keeps backgammon and drops the query.
(function chooseGame() {
  var KEY = "site.game";
  var store = null;
  try {
    store = window.localStorage;
  } catch (err) {
    store = null; // storage disabled: the root address is backgammon's
  }
  function keep(game) {
    try {
      if (store) store.setItem(KEY, game);
    } catch (err) {
      // full or disabled: nothing kept
    }
  }
  var path = window.location.pathname;
  if (path === "/checkers" || path.indexOf("/checkers/") === 0) {
    keep("checkers");
    return;
  }
  var params = new URLSearchParams(window.location.search);
  if (params.get("game") === "backgammon") {
    keep("backgammon");
    params.delete("game");
    var rest = params.toString();
    window.history.replaceState(null, "", path + (rest ? "?" + rest : "") + window.location.hash);
    return;
  }
  if (path === "/" && !window.location.search && !window.location.hash && store &&
      store.getItem(KEY) === "checkers") {
    window.location.replace("/checkers");
    return;
  }
  keep("backgammon");
})();
