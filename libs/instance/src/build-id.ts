declare const PANEFLOW_BUILD_ID: string | undefined;

/** Set by the bundler to a hash of the bundle, so that two builds of other code never share it. */
export const BUILD_ID = typeof PANEFLOW_BUILD_ID === 'string' ? PANEFLOW_BUILD_ID : 'dev';
