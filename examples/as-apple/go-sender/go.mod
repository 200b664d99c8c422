module pushbench.example/go-sender

go 1.19
