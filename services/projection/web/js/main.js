import { LANGUAGES, identity, language, setLanguage, signIn, signOut, useJwt } from "./api.js";
import { h, toast } from "./dom.js";
import { lobbyPage } from "./lobby.js";
import { createPage } from "./create.js";
import { gamePage } from "./game.js";
import { watchTurns, yourGamesPage } from "./yourgames.js";

const main = document.getElementById("main");
let leave = null;  // the current page's clean-up (closes its live stream)

function renderLanguage() {  // the language setting: the page is drawn again in the chosen language
  const choice = h("select", { id: "language", "aria-label": "Language", "data-testid": "language",
    onchange: () => { setLanguage(choice.value); location.reload(); } },
    h("option", { value: "" }, "Language: browser"),
    ...Object.entries(LANGUAGES).map(([code, label]) => h("option", { value: code }, label)));
  choice.value = language();
  document.getElementById("who").before(choice);
}

function renderWho() {
  const who = document.getElementById("who");
  const me = identity();
  who.replaceChildren();
  if (me) {
    who.append(h("span", {}, "Signed in as ", h("strong", {"data-testid": "player"}, me.name)),
      h("button.link", { onclick: () => { signOut(); route(); } }, "Sign out"));
    return;
  }
  const input = h("input", { id: "player-id", name: "player", placeholder: "player id", required: true,
"aria-label": "Player id", autocomplete: "username" });
  const form = h("form.signin", {
    onsubmit: async (event) => {
      event.preventDefault();
      const value = input.value.trim();
      try {
        if (value.split(".").length === 3 && value.length > 100) useJwt(value);
        else await signIn(value, value);
        route();
      } catch (error) {
        toast(`Sign-in failed: ${error.message}`);
      }
    },
  }, input, h("button", { type: "submit" }, "Sign in"));
  who.append(form);
}

async function route() {
  if (leave) { leave(); leave = null; }
  renderWho();
  watchTurns();
  const path = (location.hash || "#/").slice(1);
  const parts = path.split("/").filter(Boolean);
  main.replaceChildren(h("p.muted", {}, "Loading…"));
  try {
    if (parts[0] === "create") leave = await createPage(main, parts[1]);
    else if (parts[0] === "mine") leave = await yourGamesPage(main);
    else if (parts[0] === "game" && parts[1]) leave = await gamePage(main, parts[1], parts[2] === "watch");
    else leave = await lobbyPage(main, new URLSearchParams(path.split("?")[1] || ""));
  } catch (error) {
    main.replaceChildren(h("p.error", { role: "alert" }, `Could not load this page: ${error.message}`));
  }
}

window.addEventListener("hashchange", route);
renderLanguage();
route();
