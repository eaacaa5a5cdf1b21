/** Protocol versions, apart from the schemas so that a small client can load them alone. */
export const HOST_PROTOCOL_VERSION = 1;
export const PUBLIC_PROTOCOL_VERSION = 1;
