// Every word the pages show comes from one catalogue per language (../i18n/<lang>.json): a third
// language is one more file and one more entry in LANGS.  The language is the person's choice (the
// switch on the page, remembered), else the browser's first language we have, else English.


export const LANGS = { en: "English", de: "Deutsch" };
export const KEY = "referee.lang";  // where the chosen language is remembered
let catalogue = {};
let pageKeys = new Set(); // the page's own keys: a game's words add to them, never replace them
export let lang = "en";

export async function loadLanguage() {
  let saved = null;
  try { saved = localStorage.getItem(KEY); } catch { /* storage off: the browser's language decides */ }
  const wanted = [saved, ...(navigator.languages || [navigator.language])].filter(Boolean)
    .map((l) => l.slice(0, 2).toLowerCase()).find((l) => l in LANGS);
  lang = wanted || "en";
  catalogue = await (await fetch(`/static/web/i18n/${lang}.json`)).json();
  pageKeys = new Set(Object.keys(catalogue));
  document.documentElement.lang = lang;
  plurals = new Intl.PluralRules(lang);
  ordinals = new Intl.PluralRules(lang, { type: "ordinal" });
  numbers = new Intl.NumberFormat(lang === "de" ? "de-DE" : "en-US");
  return lang;
}

/** The page's plural rules and numbers (Intl), so that "1 Mobs" and "1 Punkte" cannot be written. */
let plurals = new Intl.PluralRules("en");
let ordinals = new Intl.PluralRules("en", { type: "ordinal" });
let numbers = new Intl.NumberFormat("en-US");
const ORDINAL_EN = { one: "st", two: "nd", few: "rd", other: "th" };

/** Who the game's texts name: the table gives its seat namer ({name(seat), names(seats)}). */
let speaker = { name: (seat) => t("seat.n", { n: seat + 1 }), names: (seats) => seats.map((s) => speaker.name(s)).join(", ") };
export const speak = (talk) => { speaker = talk; };

/** ``a.b.c`` of ``vars`` (a blank's path). */
const at = (vars, path) => path.split(".").reduce((v, k) => (v === null || v === undefined ? v : v[k]), vars);

/** A number in the page's language (1,000 / 1.000), an ordinal (1st / 1.). */
export const number = (n) => (typeof n === "number" ? numbers.format(n) : String(n));
export const ordinal = (n) => (lang === "en" ? `${n}${ORDINAL_EN[ordinals.select(n)] ?? "th"}` : `${n}.`);

/** A blank's value as words: ``{path}``, or ``{path|kind}`` with a kind of the game catalogues' blanks. */
function blank(value, kind) {
  if (value === null || value === undefined) return "–";
  switch (kind) {
    case "seat": return speaker.name(value);
    case "seats": return value.length ? speaker.names(value) : t("word.none");
    case "dice": return value.map(number).join(" ");
    case "ordinal": return ordinal(value);
    // English's possessive of a seat's name: "Ann's", "greedy bot's", and "your" for "Ann (you)"
    case "poss": return String(value).endsWith(t("seat.you", { name: "" })) ? t("seat.your") : `${value}'s`;
    case "byseat": return value.map((v, s) => `${speaker.name(s)} ${Array.isArray(v) ? (v.length ? v.join(" ") : "–") : blank(v)}`).join("; ");
    default:
      // {n|@key}: a count with its noun, from a plural entry of the catalogue ("1 trend card", "3 Trendkarten")
      if (kind?.startsWith("@")) return t(kind.slice(1), { n: value });
      if (Array.isArray(value)) return value.map((v) => blank(v)).join(", ");
      if (typeof value === "boolean") return value ? t("word.yes") : t("word.no");
      return number(value);
  }
}

/**
 * The catalogue's text for ``key`` with ``{name}`` (or ``{a.b|kind}``) filled from ``vars``.  An entry of
 * plural forms ({one, other}, "few"/"many" where a language has them, and an optional "zero") picks by
 * ``vars.n`` (or by the entry's ``n``: the path of the number) through the browser's Intl.PluralRules.  A missing key shows as
 * itself (a test checks that none is missing).
 */
export function t(key, vars = {}) {
  let text = catalogue[key];
  if (text && typeof text === "object") {
    const n = Number(at(vars, text.n || "n"));
    text = (n === 0 && text.zero) || text[plurals.select(n)] || text.other;
  }
  if (typeof text !== "string") return key;
  const filled = text.replace(/\{([\w.]+)(?:\|([@\w.]+))?\}/g, (whole, path, kind) => {
    const value = at(vars, path);
    return value === undefined ? whole : blank(value, kind);
  });
  return text.startsWith("{") ? capital(filled) : filled; // a text that begins with a blank still begins a sentence
}

/** A sentence begins with a capital, whatever name or word comes first ("gieriger Bot nahm" -> "Gieriger Bot nahm"). */
export const capital = (text) => (typeof text === "string" && text ? text[0].toLocaleUpperCase(lang) + text.slice(1) : text);

/**
 * The words a game's package gives the table (GET /games/{game}/words/{lang}; English when it has none in the
 * page's language), merged into the catalogue.  Only keys the page's own catalogue lacks count: a game cannot
 * reword the table.  The five built-in games give their words the same way (service/games/<game>/words/).
 */
export async function loadGameWords(game) {
  const langs = game.words || [];
  const which = langs.includes(lang) ? lang : langs.includes("en") ? "en" : null;
  if (!which) return;
  const response = await fetch(`/games/${encodeURIComponent(game.name)}/words/${which}`);
  if (!response.ok) return;
  scope = game.name;
  addWords(await response.json());
}

/** Words merged into the catalogue (a game's, the analysis's): they add keys, never reword the page's. */
export function addWords(words) {
  for (const [key, text] of Object.entries(words)) if (!pageKeys.has(key)) catalogue[key] = text;
}

let scope = "";
/** The table's game's own text for a generic key ("field.quantity" -> "liars_dice.field.quantity") when it has one. */
export const scoped = (key) => (`${scope}.${key}` in catalogue ? `${scope}.${key}` : key);

/** The catalogue's keys that begin with ``prefix``, in the catalogue's order (a game's words order its fields). */
export const keysOf = (prefix) => Object.keys(catalogue).filter((k) => k.startsWith(prefix));

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
