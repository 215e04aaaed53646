// A small element builder: h("div.card", {onclick}, child, ...); no framework.
export function h(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag || "div");
  if (classes.length) el.className = classes.join(" ");
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG = "http://www.w3.org/2000/svg";
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function toast(text) {
  const el = document.getElementById("toast");
  el.textContent = text;
  el.classList.add("shown");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => el.classList.remove("shown"), 5000);
}

export const words = (id) => String(id).replace(/[_:]/g, " ");

// A game type by its name ("Underwater Cities"), in the chosen language; a type the client does not know: in words.
export function gameTypeName(type, t) {
  const names = { nautilus: t("Nautilus"), underwater_cities: t("Underwater Cities"), aquatica: t("Aquatica") };
  return names[type] || words(type).replace(/\b\w/g, (c) => c.toUpperCase());
}

// A table named for its game and its players, "Nautilus · Ana, Greedy Gus" (open seats counted), never by its id.
export function tableName(typeName, seats, t) {
  const taken = (seats || []).filter(Boolean).map((s) => s.name || s.player_id);
  const open = (seats || []).filter((s) => !s).length;
  const people = [...taken, ...(open ? [open === 1 ? t("1 open seat") : t("{n} open seats", { n: open })] : [])];
  return people.length ? `${typeName} · ${people.join(", ")}` : typeName;
}
