/** Every limit and framing byte of OSC7501.md in one place; all limits count UTF-8 bytes. */
export const INTRODUCER = '\x1b]7501;';
/** The framing bytes of §2: the two terminators (BEL, ST = ESC \\), and CAN and SUB, which abort. */
export const ESC = 0x1b;
export const BEL = 0x07;
export const CAN = 0x18;
export const SUB = 0x1a;
export const BACKSLASH = 0x5c;
/** The introducer's bytes. */
export const INTRO = Array.from(INTRODUCER, (c) => c.charCodeAt(0));
export const MAX_SEQUENCE_BYTES = 4096;
/** `ESC ] 7501 ;` is 7 bytes, `ESC \` 2 and `BEL` 1. */
export const MAX_BODY_BYTES_ST = MAX_SEQUENCE_BYTES - 7 - 2;
export const MAX_BODY_BYTES_BEL = MAX_SEQUENCE_BYTES - 7 - 1;
export const MAX_KEY_BYTES = 16;
export const MAX_APP_BYTES = 32;
export const MAX_ID_BYTES = 128;
export const MAX_ID_SEGMENTS = 8;
export const MAX_ID_SEGMENT_BYTES = 32;
export const MAX_TITLE_ENCODED_BYTES = 256;
export const MAX_TITLE_DECODED_BYTES = 192;
export const MAX_MSG_ENCODED_BYTES = 2732;
export const MAX_MSG_DECODED_BYTES = 2048;
export const MIN_CAPACITY = 64;
export const MAX_CAPACITY = 256;
export const DEFAULT_CAPACITY = 256;

/** The five states a program can declare (§4), in the order the capability reply lists them. */
export const STATES = ['idle', 'working', 'done', 'blocked', 'error'] as const;
/** What a blocked program can be waiting for. */
export const KINDS = ['permission', 'question', 'auth'] as const;

/** The body of the fixed capability reply (§7.2), without its terminator. */
export const REPLY_BODY = `?:states=${STATES.join(',')}:kinds=${KINDS.join(',')}`;
