// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- ambient module declarations cannot be imported
/// <reference path="./virtual-modules.d.ts" />
import priceText from 'virtual:paneflow-prices';
import texts from 'virtual:paneflow-runtimes';
import { parseCatalog, parsePrices, type Catalog, type PriceEntry } from './match';

let catalog: Catalog | null = null;
let prices: PriceEntry[] | null = null;

/** The catalog of runtimes/, read into the bundle at build time and parsed on first use. */
export function runtimeCatalog(): Catalog {
  catalog ??= parseCatalog(texts);
  return catalog;
}

/** runtimes/prices.toml, read into the bundle at build time and parsed on first use. */
export function priceTable(): PriceEntry[] {
  prices ??= parsePrices(priceText);
  return prices;
}
