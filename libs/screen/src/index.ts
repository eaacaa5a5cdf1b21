export { Attr, DEFAULT_COLOR, DEFAULT_STYLE, colorKind, colorValue, paletteColor, rgbColor } from './style';
export type { Color, Style } from './style';
export { Grid } from './grid';
export type { Cell, Rect } from './grid';
export { charWidth } from './width';
export { displayWidth, sanitizeForGrid, writeText } from './text';
export type { WriteTextOptions } from './text';
