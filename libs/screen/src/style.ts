/**
 * A colour packed into one unsigned 32-bit number, so a cell's colours live in typed arrays:
 * 0 is the terminal's default, `0x1000000 | index` a palette entry (0–15 the 16 ANSI colours,
 * 16–255 the 256-colour cube and greys), `0x2000000 | 0xRRGGBB` a 24-bit colour.
 */
export type Color = number;

export const DEFAULT_COLOR: Color = 0;
export const COLOR_PALETTE = 0x1000000;
export const COLOR_RGB = 0x2000000;
const VALUE = 0xffffff;

export function paletteColor(index: number): Color {
  if (!Number.isInteger(index) || index < 0 || index > 255) throw new RangeError(`palette index ${index} is not 0..255`);
  return COLOR_PALETTE | index;
}

export function rgbColor(red: number, green: number, blue: number): Color {
  for (const channel of [red, green, blue]) {
    if (!Number.isInteger(channel) || channel < 0 || channel > 255) throw new RangeError(`colour channel ${channel} is not 0..255`);
  }
  return COLOR_RGB | (red << 16) | (green << 8) | blue;
}

export function colorKind(color: Color): 'default' | 'palette' | 'rgb' {
  if (color === DEFAULT_COLOR) return 'default';
  return (color & COLOR_RGB) !== 0 ? 'rgb' : 'palette';
}

/** The palette index or the 0xRRGGBB value; 0 for the default colour. */
export function colorValue(color: Color): number {
  return color & VALUE;
}

/** Attribute bits of a cell; combine with `|`. */
export const Attr = {
  bold: 1,
  dim: 2,
  italic: 4,
  underline: 8,
  blink: 16,
  inverse: 32,
  invisible: 64,
  strikethrough: 128,
} as const;

export interface Style {
  fg: Color;
  bg: Color;
  /** `Attr` bits. */
  attrs: number;
}

export const DEFAULT_STYLE: Readonly<Style> = Object.freeze({ fg: DEFAULT_COLOR, bg: DEFAULT_COLOR, attrs: 0 });
