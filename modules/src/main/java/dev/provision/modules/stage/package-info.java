/**
 * {@code stage}: a data set copied onto every node's local disk, the source read about once and the
 * data handed from node to node (rsync over the cluster's own SSH identity), every file verified
 * against a manifest that the node reading the source makes from the bytes it reads (planning lists
 * the source's metadata only). {@link dev.provision.modules.stage.Manifest} and
 * {@link dev.provision.modules.stage.NodeHoldings} are pure parsers of what the node-side scripts
 * print; {@link dev.provision.modules.stage.FanOut} decides, round by round, who fetches from whom.
 */
package dev.provision.modules.stage;
