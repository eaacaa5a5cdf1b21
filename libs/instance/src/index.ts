export * from './endpoints';
export * from './files';
export * from './lock';
export * from './programs';
export * from './desktop';
export * from './bootstrap';
export * from './build-id';
export * from './daemon';
