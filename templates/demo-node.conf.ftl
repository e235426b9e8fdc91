# ${inventory_hostname} — rendered by provision on the controller
hostname = ${facts.hostname}
os = ${facts.distribution} ${facts.distribution_version} (${facts.os_family})
cpus = ${facts.processor_count}
memory_mb = ${facts.memtotal_mb!0}
services = ${services?join(", ")}
