package dev.provision.engine.playbook;

import dev.provision.engine.source.SourcePosition;

/** A task or a block of tasks; the closed set the executor walks. */
public sealed interface TaskNode permits Task, Block {
    String name();

    SourcePosition position();
}
