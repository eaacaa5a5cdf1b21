/** `runtimes/<slug>/runtime.toml` texts by slug, put in by the bundler (tools/runtime-texts.cjs). */
declare module 'virtual:paneflow-runtimes' {
  const texts: Record<string, string>;
  export default texts;
}
