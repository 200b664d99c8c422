module pushbench.test/netmera-go

go 1.19
