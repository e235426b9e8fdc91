/** End-to-end tests of {@code playbooks/stage.yml}: a data set staged onto the test cluster's nodes. */
package dev.provision.engine.e2e.stage;
