# podman/containers storage of ${inventory_hostname}, written by provision (playbooks/cluster.yml).
[storage]
driver = "${container_storage_driver!"overlay"}"
runroot = "/run/containers/storage"
graphroot = "/var/lib/containers/storage"
