// One reading of PANEFLOW_TEST_TIME_FACTOR, for the jest configs (CommonJS) and the tests alike.
export { scaled, timeFactor } from '@paneflow/test-time';
