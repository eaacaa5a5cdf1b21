/** `runtimes/<slug>/runtime.toml` texts by slug, put in by the bundler (tools/runtime-texts.cjs). */
declare module 'virtual:paneflow-runtimes' {
  const texts: Record<string, string>;
  export default texts;
}

/** The text of `runtimes/prices.toml`, put in by the bundler (tools/price-text.cjs). */
declare module 'virtual:paneflow-prices' {
  const text: string;
  export default text;
}
