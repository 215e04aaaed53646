import { LANGUAGES, identity, language, setLanguage, signIn, signOut, useJwt } from "./api.js";
import { h, toast } from "./dom.js";
import { lobbyPage } from "./lobby.js";
import { createPage } from "./create.js";
import { gamePage } from "./game.js";
import { watchTurns, yourGamesPage } from "./yourgames.js";
import { playPage } from "./play.js";
import { loadMessages, t } from "./i18n.js";

const main = document.getElementById("main");
let leave = null;  // the current page's clean-up (closes its live stream)

function renderLanguage() {  // the language setting: the page is drawn again in the chosen language
  const choice = h("select", { id: "language", "aria-label": t("Language"), "data-testid": "language",
    onchange: () => { setLanguage(choice.value); location.reload(); } },
    h("option", { value: "" }, t("Language: browser")),
    ...Object.entries(LANGUAGES).map(([code, label]) => h("option", { value: code }, label)));
  choice.value = language();
  document.getElementById("who").before(choice);
}

function renderWho() {
  const who = document.getElementById("who");
  const me = identity();
  who.replaceChildren();
  if (me) {
    who.append(h("span", {}, t("Signed in as") + " ", h("strong", {"data-testid": "player"}, me.name)),
      h("button.link", { onclick: () => { signOut(); route(); } }, t("Sign out")));
    return;
  }
  const input = h("input", { id: "player-id", name: "player", placeholder: t("player id"), required: true,
"aria-label": t("Player id"), autocomplete: "username" });
  const form = h("form.signin", {
    onsubmit: async (event) => {
      event.preventDefault();
      const value = input.value.trim();
      try {
        if (value.split(".").length === 3 && value.length > 100) useJwt(value);
        else await signIn(value, value);
        route();
      } catch (error) {
        toast(t("Sign-in failed: {error}", { error: error.message }));
      }
    },
  }, input, h("button", { type: "submit" }, t("Sign in")));
  who.append(form);
}

// Each route draws into a container of its own: a page still loading when the next route starts (a sign-in's
// lobby, then a click to "Your games") draws into its detached container, never over the newer page.
let routed = 0;
async function route() {
  if (leave) { leave(); leave = null; }
  const turn = ++routed;
  renderWho();
  watchTurns();
  const path = (location.hash || "#/").slice(1);
  const parts = path.split("/").filter(Boolean);
  const page = h("div.page", {}, h("p.muted", {}, t("Loading…")));
  main.replaceChildren(page);
  let left = null;
  try {
    if (parts[0] === "create") left = await createPage(page, parts[1]);
    else if (parts[0] === "mine") left = await yourGamesPage(page);
    else if (parts[0] === "play") left = await playPage(page);
    else if (parts[0] === "game" && parts[1]) left = await gamePage(page, parts[1], parts[2] === "watch");
    else left = await lobbyPage(page, new URLSearchParams(path.split("?")[1] || ""));
  } catch (error) {
    page.replaceChildren(h("p.error", { role: "alert" }, t("Could not load this page: {error}", { error: error.message })));
  }
  if (turn === routed) leave = left;
  else if (left) left();  // a newer route has started: this page is gone already
}

// The page's own words (index.html) in the chosen language.
function renderFrame() {
  const nav = { "#/": t("Lobby"), "#/play": t("Play"), "#/create": t("New game"), "#/mine": t("Your games") };
  for (const link of document.querySelectorAll("nav a[href]")) {
    if (nav[link.getAttribute("href")]) link.firstChild.textContent = nav[link.getAttribute("href")] + (link.children.length ? " " : "");
  }
  document.querySelector("nav").setAttribute("aria-label", t("Main"));
  document.querySelector("a.skip").textContent = t("Skip to content");
}

await loadMessages();
window.addEventListener("hashchange", route);
renderFrame();
renderLanguage();
route();
