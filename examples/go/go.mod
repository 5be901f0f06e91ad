module example.com/baracuda

go 1.19
