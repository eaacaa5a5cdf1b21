// Bidi controls and invisible format characters (OSC7501.md §11.2): a message must not be able to
// reorder or hide what surrounds it in a sidebar, notification or header.
const UNSAFE_FOR_DISPLAY = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u00ad\u200b-\u200d\u2060-\u2064\ufeff]/g;

/** Cleans declared text for display outside the terminal grid; stored records keep the original. */
export function sanitizeForDisplay(text: string): string {
  return text.replace(UNSAFE_FOR_DISPLAY, '');
}
