// Every word the pages show comes from one catalogue per language (../i18n/<lang>.json): a third
// language is one more file and one more entry in LANGS.  The language is the person's choice (the
// switch on the page, remembered), else the browser's first language we have, else English.

import { h } from "./dom.js";

export const LANGS = { en: "English", de: "Deutsch" };
const KEY = "referee.lang";
let catalogue = {};
export let lang = "en";

export async function loadLanguage() {
  let saved = null;
  try { saved = localStorage.getItem(KEY); } catch { /* storage off: the browser's language decides */ }
  const wanted = [saved, ...(navigator.languages || [navigator.language])].filter(Boolean)
    .map((l) => l.slice(0, 2).toLowerCase()).find((l) => l in LANGS);
  lang = wanted || "en";
  catalogue = await (await fetch(`/static/web/i18n/${lang}.json`)).json();
  document.documentElement.lang = lang;
  return lang;
}

/**
 * The catalogue's text for ``key`` with ``{name}`` filled from ``vars``; an entry {one, other} picks by
 * ``vars.n``.  A missing key shows as itself (a test checks that none is missing).
 */
export function t(key, vars = {}) {
  let text = catalogue[key];
  if (text && typeof text === "object") text = vars.n === 1 ? text.one : text.other;
  if (typeof text !== "string") return key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (vars[name] === undefined ? whole : String(vars[name])));
}

/** True when the catalogue has ``key`` (for optional texts such as a game's phase help). */
export const has = (key) => key in catalogue;

/** A bot kind in words ("greedy" -> "greedy bot", "gieriger Bot"); an unknown kind as the server names it. */
export const botName = (kind) => (has(`bot.${kind}`) ? t(`bot.${kind}`) : `${kind} bot`);

/** A seat's name: a bot seat the server named after its kind ("greedy bot") is named in the page's language. */
export function seatName(seat) {
  // a built-in bot's own name (a tournament seats `builtin:KIND`) is said in the page's language
  if (seat?.bot && [undefined, null, "", `${seat.bot} bot`, `builtin:${seat.bot}`].includes(seat.name)) {
    return botName(seat.bot);
  }
  const apart = seat?.bot && seat.name?.startsWith(`builtin:${seat.bot}`) ? seat.name.slice(8 + seat.bot.length) : "";
  if (/^[@#]/.test(apart)) return `${botName(seat.bot)} ${apart}`;  // a tournament's `builtin:greedy#2`
  return seat?.name || "";
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
