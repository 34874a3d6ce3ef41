// Tiny DOM helpers shared by the lobby, the table and every game renderer.

import { KEY, LANGS, lang, t } from "./i18n.js";

/** h("button", {class: "move", onclick}, "Take") -> an element; null/false children are skipped. */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

/** Replace everything inside ``el``. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** "send_mobs" -> "send mobs". */
export const words = (name) => String(name).replaceAll("_", " ");

/** 15000 -> "15,000". */
export const num = (n, options = {}) => (n === null || n === undefined ? "?"
  : Number(n).toLocaleString(document.documentElement.lang === "de" ? "de-DE" : "en-US", options));

/** Any JSON value as words: {"photo_value": 42000, "photos": {"A": 2}} -> "photo value 42,000; photos (A 2)". */
export function readable(value) {
  if (value === null || value === undefined) return "–";
  if (typeof value === "number") return num(value);
  if (typeof value === "boolean") return value ? t("word.yes") : t("word.no");
  if (Array.isArray(value)) return value.length ? value.map(readable).join(", ") : t("word.none");
  if (typeof value === "object") {
    return Object.entries(value).map(([k, v]) => (v !== null && typeof v === "object" && !Array.isArray(v)
      ? `${words(k)} (${readable(v)})` : `${words(k)} ${readable(v)}`)).join("; ");
  }
  return words(value);
}

/** The switch on the page: choosing a language reloads the page in it. */
export function languageSwitch() {
  const select = h("select", { id: "lang", "aria-label": t("lang.choose") },
    Object.entries(LANGS).map(([code, name]) => h("option", { value: code, selected: code === lang, lang: code }, name)));
  select.addEventListener("change", () => {
    try { localStorage.setItem(KEY, select.value); } catch { /* not remembered */ }
    location.reload();
  });
  return select;
}
