/** Where things came from: file, line and column of every user-written value, and user-input errors. */
package dev.provision.engine.source;
