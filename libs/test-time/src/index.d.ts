/** How much longer than on a quiet machine every deadline of the tests is (PANEFLOW_TEST_TIME_FACTOR). */
export declare const timeFactor: number;
/** A deadline of the tests: `ms` times PANEFLOW_TEST_TIME_FACTOR. */
export declare function scaled(ms: number): number;
