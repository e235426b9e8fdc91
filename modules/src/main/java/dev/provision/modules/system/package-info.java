/**
 * Modules that tune and equip one host: {@code sysctl} (kernel parameters, drop-in file and live
 * value), {@code limits} (pam_limits and systemd default limits), {@code service} (systemd, init
 * scripts, or a daemon started with start-stop-daemon where no init system runs), {@code package}
 * (apt and dnf; {@code apt}, {@code dnf}, {@code yum} are its Ansible names), {@code systemd} (and
 * {@code systemd_service}: {@code service}'s systemd planning with masks and daemon-reload),
 * {@code mount} (fstab and mounted state), {@code user} and {@code group} (the account database
 * read through {@code getent} and {@code id}, see {@code Accounts}, and changed with shadow-utils).
 * {@code hostname} and {@code timezone} (the zone as {@code /etc/localtime} and {@code /etc/timezone}, the
 * hardware clock's UTC or LOCAL in {@code /etc/adjtime}) keep the host's identity and clock settings.
 * {@code apt_repository}, {@code yum_repository} and {@code rpm_key} keep package sources as
 * Ansible writes them ({@code AptSources}, {@code RepoIni}; keys read by {@code OpenPgpKey}).
 * {@code firewalld} (firewall-cmd's queries and changes, firewall-offline-cmd for a stopped daemon),
 * {@code seboolean} and {@code sefcontext} (getsebool, semanage and setsebool, read by {@code Selinux})
 * keep a node's firewall and SELinux settings.
 * Each reads the host through probes and files, and plans whole-file writes through
 * {@link dev.provision.modules.files.FileContentPlanner}.
 */
package dev.provision.modules.system;
