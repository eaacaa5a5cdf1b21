export * from './presentation';
export * from './picture';
export * from './spinner';
export * from './text';
export * from './scrollback';
export * from './turns';
export * from './supervision';
export * from './machines';
