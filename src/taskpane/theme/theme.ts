// Light or dark, following Office's theme where Office tells us (Office.context.officeTheme,
// ExcelApi-independent, available in Excel desktop and on the web), else the browser's
// prefers-color-scheme. Installs the stylesheet once and keeps <html data-theme> current.
import { PANE_CSS } from "./styles";

export type ThemeName = "light" | "dark";

interface OfficeThemeLike {
  bodyBackgroundColor?: string;
}

/** Relative luminance (0..1) of a #rrggbb colour; null when it is not one. */
export function luminance(hex: string): number | null {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) return null;
  const n = parseInt(m[1]!, 16);
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel((n >> 16) & 255) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255);
}

/** The theme Office asks for, or null when Office does not say (outside Office, or an old host). */
export function officeThemeName(office: unknown): ThemeName | null {
  const theme = (office as { context?: { officeTheme?: OfficeThemeLike } } | undefined)?.context?.officeTheme;
  const bg = theme?.bodyBackgroundColor;
  if (typeof bg !== "string") return null;
  const l = luminance(bg);
  if (l === null) return null;
  return l < 0.4 ? "dark" : "light";
}

export function systemThemeName(win: Window = window): ThemeName {
  return win.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

/** Inject the stylesheet (once) and apply the theme; re-applies when the system theme changes. */
export function installTheme(doc: Document = document, office: unknown = (globalThis as { Office?: unknown }).Office): ThemeName {
  if (!doc.getElementById("cb-styles")) {
    const style = doc.createElement("style");
    style.id = "cb-styles";
    style.textContent = PANE_CSS;
    doc.head.append(style);
  }
  const apply = () => {
    const name = officeThemeName(office) ?? systemThemeName(doc.defaultView ?? window);
    doc.documentElement.dataset.theme = name;
    return name;
  };
  doc.defaultView?.matchMedia?.("(prefers-color-scheme: dark)").addEventListener?.("change", apply);
  return apply();
}
