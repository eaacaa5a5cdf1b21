// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- ambient module declarations cannot be imported
/// <reference path="./virtual-modules.d.ts" />
import texts from 'virtual:paneflow-runtimes';
import { parseCatalog, type Catalog } from './match';

let catalog: Catalog | null = null;

/** The catalog of runtimes/, read into the bundle at build time and parsed on first use. */
export function runtimeCatalog(): Catalog {
  catalog ??= parseCatalog(texts);
  return catalog;
}
