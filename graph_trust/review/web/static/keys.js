// graph-trust review page: keyboard shortcuts (the list is on every page and in docs/review.md).
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("[data-row]"));
  var selected = -1;
  var decide = document.getElementById("decide");
  var pending = document.getElementById("pending");
  var chosen = null;

  function typing(el) {
    return el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.isContentEditable);
  }
  function select(i) {
    if (!rows.length) { return; }
    selected = Math.max(0, Math.min(rows.length - 1, i));
    rows.forEach(function (r, k) { r.classList.toggle("selected", k === selected); });
    rows[selected].scrollIntoView({block: "nearest"});
  }
  function choose(action) {
    if (!decide) { return; }
    chosen = action;
    decide.querySelectorAll("button[data-action]").forEach(function (b) {
      b.classList.toggle("chosen", b.dataset.action === action);
    });
    pending.textContent = "Type the reason, then Enter to " + action + " (Esc to cancel).";
    document.getElementById("reason").focus();
  }
  if (decide) {
    // Enter in the reason submits the chosen decision; with none chosen it does nothing (the
    // form's default button is disabled, so a stray Enter never promotes).
    document.getElementById("reason").addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" && chosen) {
        ev.preventDefault();
        decide.requestSubmit(document.getElementById("do-" + chosen));
      } else if (ev.key === "Enter") {
        ev.preventDefault();
        pending.textContent = "Choose a decision first: p, c, r or e (or click a button).";
      }
    });
  }
  var shortcuts = document.getElementById("shortcuts");
  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) { return; }
    if (typing(ev.target)) {
      if (ev.key === "Escape") { ev.target.blur(); }
      return;
    }
    var go = null;
    switch (ev.key) {
      case "j": select(selected + 1); break;
      case "k": select(selected - 1); break;
      case "Enter": case "o": if (selected >= 0) { go = rows[selected].dataset.href; } else { return; } break;
      case "p": choose("promote"); break;
      case "c": choose("corroborate"); break;
      case "r": choose("reject"); break;
      case "e": choose("expire"); break;
      case "u": var u = document.getElementById("undo-reason"); if (u) { u.focus(); } else { return; } break;
      case "q": go = "/"; break;
      case "h": go = "/history"; break;
      case "?": if (shortcuts) { shortcuts.open = !shortcuts.open; } break;
      default: return;
    }
    ev.preventDefault();
    if (go) { window.location.href = go; }
  });
})();
