// Every deadline of the tests scales with PANEFLOW_TEST_TIME_FACTOR (default 1; say 3 on a slow or
// busy machine): the jest configs' test timeouts, each test's own, and every wait of the test helpers.
const given = Number(process.env.PANEFLOW_TEST_TIME_FACTOR);
const timeFactor = Number.isFinite(given) && given >= 1 ? given : 1;

/** `ms` times the factor. */
const scaled = (ms) => Math.round(ms * timeFactor);

module.exports = { timeFactor, scaled };
