export * from './framing';
export * from './server';
export * from './client';
