/**
 * The web console at {@code /console}: static pages (no build step; uPlot from its WebJar draws the chart) that
 * call Courier's own REST API with the operator's credentials, so the console can do nothing the API would not
 * let that operator do. The one endpoint of its own, {@link dev.courier.console.ConsoleResource}, hands the pages
 * the numbers {@code /metrics} serves, as JSON.
 */
package dev.courier.console;
