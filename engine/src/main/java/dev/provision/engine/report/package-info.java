/**
 * What a run tells the world: {@link dev.provision.engine.report.RunListener} (no-op defaults, must
 * be fast and never throw), the human output, the JSON report and the recap.
 */
package dev.provision.engine.report;
