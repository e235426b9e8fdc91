package dev.provision.engine.exec;

/**
 * A variable whose object differs from host to host only in who reads it ({@code hostvars} and
 * {@code play_hosts} wait for the hosts read to catch up with their reader), while what it shows is
 * the same for every host at the same task. {@link TaskStep} treats two such values of one play as
 * the same value.
 */
interface SameOnEveryHost {
}
